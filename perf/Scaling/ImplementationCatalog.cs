using ScalableMetrics.Scaling.Implementations;

namespace ScalableMetrics.Scaling;

/// <summary>Every implementation the harness can measure, in the order results are shown.</summary>
/// <remarks>prometheus-net is not among them: no version of it is available from our package
/// source, and a stand-in would not measure prometheus-net.</remarks>
internal static class ImplementationCatalog
{
    public static IReadOnlyList<string> Ids { get; } =
    [
        "shared-interlocked",
        "array-unpadded",
        "array-padded",
        "partitioned",
        "partitioned-interlocked",
        "partitioned-per-thread",
        "partitioned-ttas",
        "partitioned-monitor",
        "opentelemetry",
        "histogram-opentelemetry",
    ];

    public static CountingImplementation Create(string id) => id switch
    {
        "shared-interlocked" => new SharedInterlocked(),
        "array-unpadded" => new ArrayUnpadded(),
        "array-padded" => new ArrayPadded(),
        "partitioned" => new Partitioned(PartitionStrategy.PerProcessor, useRestartableSequences: true),
        "partitioned-interlocked" => new Partitioned(PartitionStrategy.PerProcessor, useRestartableSequences: false),
        "partitioned-per-thread" => new Partitioned(PartitionStrategy.PerThread, useRestartableSequences: true),
        "partitioned-ttas" => new PartitionedTtas(),
        "partitioned-monitor" => new PartitionedMonitor(),
        "opentelemetry" => new OpenTelemetryCounter(),
        "histogram-opentelemetry" => new OpenTelemetryHistogram(),
        _ => throw new ArgumentException($"Unknown implementation '{id}'; known: {string.Join(", ", Ids)}.", nameof(id)),
    };
}
