namespace ScalableMetrics.Exporter.Hosting;

/// <summary>
/// The line the host logs at start about the write path: which one the registry uses and why
/// (<see cref="MetricRegistry.WritePath"/>, <see cref="MetricRegistry.WritePathReason"/>), so that
/// a service that runs slower than its benchmark can tell, from its own log, whether it runs on
/// restartable sequences, Interlocked adds or per-thread partitions; and why it has its partitions
/// (<see cref="MetricRegistry.PartitionReason"/>: the processors the process may use, the id that
/// picks a region, and where adds with no region go, counted by the self-metric
/// <c>scalablemetrics.overflow_region.adds</c>).
/// </summary>
internal static partial class WritePathLog
{
    /// <summary>The event of the line.</summary>
    public const int EventId = 41;

    /// <summary>
    /// Logs one line for <paramref name="registry"/> and the registries of the meters listened to
    /// (<see cref="ScalableMetricsOptions.Meters"/>): those are made from the same
    /// <see cref="ScalableMetricsOptions.Registry"/> settings in the same process, so they take the
    /// same write path, and one line says it for all.
    /// </summary>
    public static void Log(ILogger logger, MetricRegistry registry, ScalableMetricsOptions options)
    {
        string listened = options.Meters.Count == 0
            ? ""
            : $", and the registries of the meters listened to ({string.Join(", ", options.Meters)})";
        LogWritePath(logger, registry.WritePath.ToString(), registry.PartitionCount, options.MeterName, listened, registry.WritePathReason, registry.PartitionReason);
    }

    [LoggerMessage(EventId = EventId, Level = LogLevel.Information, Message = "ScalableMetrics write path: {WritePath}, {PartitionCount} partitions, for the registry of meter '{MeterName}'{Listened}. {Reason} {PartitionReason}")]
    private static partial void LogWritePath(ILogger logger, string writePath, int partitionCount, string meterName, string listened, string reason, string partitionReason);
}
