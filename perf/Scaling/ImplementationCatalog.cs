using ScalableMetrics.Scaling.Implementations;

namespace ScalableMetrics.Scaling;

/// <summary>Every implementation the harness can measure, in the order results are shown.</summary>
/// <remarks>
/// <para>The <c>histogram-*</c> ones and <c>listener-histogram</c> record a value per "add" (a bucket count and the sum), the
/// same cycle of values in each (<see cref="HistogramValues"/>); compare them with each other, and
/// with the counters only as what a record costs over an add.</para>
/// <para>The tagged workloads (<see cref="TaggedWorkload"/>) follow, as <c>WORKLOAD-KIND</c>: each
/// record builds its tags and its series is found by them, as ASP.NET Core's instruments and
/// application code record. Compare the kinds of one workload with each other.</para>
/// </remarks>
internal static class ImplementationCatalog
{
    /// <summary>The name of the set of every tagged workload's implementations, for <c>--impl</c>.</summary>
    public const string TaggedSet = "tagged";

    private static readonly string[] s_plainIds =
    [
        "shared-interlocked",
        "array-unpadded",
        "array-padded",
        "partitioned",
        "partitioned-interlocked",
        "partitioned-per-thread",
        "partitioned-promoted",
        "partitioned-adaptive",
        "partitioned-compact",
        "partitioned-ttas",
        "partitioned-monitor",
        "opentelemetry",
        "listener-counter",
        "prometheus-net",
        "prometheus-net-labelled",
        "histogram-partitioned",
        "histogram-partitioned-per-thread",
        "histogram-partitioned-promoted",
        "histogram-opentelemetry",
        "listener-histogram",
        "histogram-prometheus-net",
        "histogram-prometheus-net-labelled",
    ];

    /// <summary>The tagged workloads' ids, <c>WORKLOAD-KIND</c>, workload by workload.</summary>
    public static IReadOnlyList<string> TaggedIds { get; } =
        [.. TaggedWorkload.All.SelectMany(static w => TaggedImplementation.Kinds.Select(kind => $"{w.Id}-{kind}"))];

    public static IReadOnlyList<string> Ids { get; } = [.. s_plainIds, .. TaggedIds];

    /// <summary>The width of the id column of the terminal's tables: the longest id.</summary>
    public static int IdWidth { get; } = Ids.Max(id => id.Length);

    /// <summary>
    /// The ids one <c>--impl</c> entry names, in catalog order: an id; <see cref="TaggedSet"/>, every
    /// tagged one; or a pattern in which <c>*</c> stands for any text (<c>aspnetcore-histogram-*</c>,
    /// <c>*-addmeter</c>, <c>*prometheus-net*</c>). Empty when it names none.
    /// </summary>
    public static IReadOnlyList<string> Select(string entry)
    {
        if (entry == TaggedSet)
        {
            return TaggedIds;
        }

        if (!entry.Contains('*', StringComparison.Ordinal))
        {
            return Ids.Contains(entry) ? [entry] : [];
        }

        string pattern = "^" + string.Join(".*", entry.Split('*').Select(System.Text.RegularExpressions.Regex.Escape)) + "$";
        return [.. Ids.Where(id => System.Text.RegularExpressions.Regex.IsMatch(id, pattern))];
    }

    public static CountingImplementation Create(string id) => id switch
    {
        "shared-interlocked" => new SharedInterlocked(),
        "array-unpadded" => new ArrayUnpadded(),
        "array-padded" => new ArrayPadded(),
        "partitioned" => new Partitioned(PartitionStrategy.PerProcessor, useRestartableSequences: true),
        "partitioned-interlocked" => new Partitioned(PartitionStrategy.PerProcessor, useRestartableSequences: false),
        "partitioned-per-thread" => new Partitioned(PartitionStrategy.PerThread, useRestartableSequences: true),
        "partitioned-promoted" => new Partitioned(PartitionStrategy.PerProcessor, useRestartableSequences: true, SeriesStorage.Adaptive, promote: true),
        "partitioned-adaptive" => new Partitioned(PartitionStrategy.PerProcessor, useRestartableSequences: true, SeriesStorage.Adaptive),
        "partitioned-compact" => new Partitioned(PartitionStrategy.PerProcessor, useRestartableSequences: true, SeriesStorage.Compact),
        "partitioned-ttas" => new PartitionedTtas(),
        "partitioned-monitor" => new PartitionedMonitor(),
        "opentelemetry" => new OpenTelemetryCounter(),
        "listener-counter" => new ListenerCounter(),
        "prometheus-net" => new PrometheusNetCounter(labelled: false),
        "prometheus-net-labelled" => new PrometheusNetCounter(labelled: true),
        "histogram-partitioned" => new PartitionedHistogramImplementation(PartitionStrategy.PerProcessor),
        "histogram-partitioned-per-thread" => new PartitionedHistogramImplementation(PartitionStrategy.PerThread),
        "histogram-partitioned-promoted" => new PartitionedHistogramImplementation(PartitionStrategy.PerProcessor, promoted: true),
        "histogram-opentelemetry" => new OpenTelemetryHistogram(),
        "listener-histogram" => new ListenerHistogram(),
        "histogram-prometheus-net" => new PrometheusNetHistogram(labelled: false),
        "histogram-prometheus-net-labelled" => new PrometheusNetHistogram(labelled: true),
        _ => CreateTagged(id),
    };

    private static TaggedImplementation CreateTagged(string id)
    {
        foreach (TaggedWorkload workload in TaggedWorkload.All)
        {
            if (id.StartsWith(workload.Id + "-", StringComparison.Ordinal) && TaggedImplementation.Kinds.Contains(id[(workload.Id.Length + 1)..]))
            {
                return TaggedImplementation.Create(workload, id[(workload.Id.Length + 1)..]);
            }
        }

        throw new ArgumentException($"Unknown implementation '{id}'; known: {string.Join(", ", Ids)}.", nameof(id));
    }
}
