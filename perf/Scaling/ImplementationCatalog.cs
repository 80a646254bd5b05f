using ScalableMetrics.Scaling.Implementations;

namespace ScalableMetrics.Scaling;

/// <summary>Every implementation the harness can measure, in the order results are shown.</summary>
/// <remarks>
/// <para>The <c>histogram-*</c> ones and <c>listener-histogram</c> record a value per "add" (a bucket count and the sum), the
/// same cycle of values in each (<see cref="HistogramValues"/>); compare them with each other, and
/// with the counters only as what a record costs over an add.</para>
/// <para>prometheus-net is not among them: no version of it is available from our package
/// source, and a stand-in would not measure prometheus-net.</para>
/// </remarks>
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
        "listener-counter",
        "histogram-partitioned",
        "histogram-partitioned-per-thread",
        "histogram-opentelemetry",
        "listener-histogram",
    ];

    /// <summary>The width of the id column of the terminal's tables: the longest id.</summary>
    public static int IdWidth { get; } = Ids.Max(id => id.Length);

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
        "listener-counter" => new ListenerCounter(),
        "histogram-partitioned" => new PartitionedHistogramImplementation(PartitionStrategy.PerProcessor),
        "histogram-partitioned-per-thread" => new PartitionedHistogramImplementation(PartitionStrategy.PerThread),
        "histogram-opentelemetry" => new OpenTelemetryHistogram(),
        "listener-histogram" => new ListenerHistogram(),
        _ => throw new ArgumentException($"Unknown implementation '{id}'; known: {string.Join(", ", Ids)}.", nameof(id)),
    };
}
