namespace ScalableMetrics;

/// <summary>
/// Settings of a <see cref="MetricRegistry"/>, read once when it is created.
/// </summary>
public class MetricRegistryOptions
{
    /// <summary>The default of <see cref="MaxSeriesPerInstrument"/>: 2000, OpenTelemetry .NET's default cardinality limit.</summary>
    public const int DefaultMaxSeriesPerInstrument = 2000;

    /// <summary>How each series' data is partitioned.</summary>
    /// <remarks>Default: <see cref="PartitionStrategy.PerProcessor"/>, which becomes
    /// <see cref="PartitionStrategy.PerThread"/> where <see cref="ProcessorId.IsSupported"/> is <see langword="false"/>.</remarks>
    public PartitionStrategy Strategy { get; set; } = PartitionStrategy.PerProcessor;

    /// <summary>Whether per-processor series add through Linux restartable sequences where the
    /// process supports them (<see cref="RestartableSequence.IsSupported"/>): a plain add to the
    /// processor's cell, no atomic instruction. When false, or where they are not supported, they
    /// add with <see cref="Interlocked"/> to the cell of the thread's cached processor id.</summary>
    /// <remarks>Default: <see langword="true"/>. Has no effect on <see cref="PartitionStrategy.PerThread"/>.</remarks>
    public bool UseRestartableSequences { get; set; } = true;

    /// <summary>The largest <see cref="PartitionCount"/>: 65,536.</summary>
    public const int MaxPartitionCount = 65_536;

    /// <summary>
    /// The partitions each series keeps a slot for (8 bytes each): per processor, processor ids
    /// (the registry adds one overflow region with restartable sequences); per thread, the thread
    /// indexes the first regions are made for (more are added as threads take indexes).
    /// </summary>
    /// <remarks>
    /// <para>Default: <see langword="null"/>, read from the machine: the highest processor id in the
    /// affinity mask plus one with restartable sequences, <see cref="Environment.ProcessorCount"/>
    /// with <see cref="Interlocked"/>, and per thread the thread indexes handed out so far, at least
    /// <see cref="Environment.ProcessorCount"/>.</para>
    /// <para>Set it above the machine's count to size series for processors brought online later,
    /// or to measure on a small machine the memory and collection cost of a large one. Below what
    /// the machine needs (or above <see cref="MaxPartitionCount"/>), creating the registry throws
    /// <see cref="ArgumentOutOfRangeException"/>.</para>
    /// </remarks>
    public int? PartitionCount { get; set; }

    /// <summary>The most series (distinct tag sets) one instrument keeps; past it, new tag sets are
    /// recorded into one series tagged <c>otel.metric.overflow=true</c>, so that no value is lost
    /// and memory stays bounded.</summary>
    /// <remarks>Default: <see cref="DefaultMaxSeriesPerInstrument"/>. Must be at least 2.</remarks>
    public int MaxSeriesPerInstrument { get; set; } = DefaultMaxSeriesPerInstrument;
}
