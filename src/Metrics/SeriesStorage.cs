using ScalableMetrics.Platform;

namespace ScalableMetrics;

/// <summary>
/// How a series keeps and updates its cells: the <see cref="PartitionStrategy"/> asked for, as
/// this process can carry it out. Chosen once per registry.
/// </summary>
internal enum SeriesStorage
{
    /// <summary>One cell per processor id below <see cref="RestartableSequence.PartitionCount"/>, each added to with a plain add inside a restartable sequence, plus one shared overflow cell updated with <see cref="Interlocked"/>.</summary>
    PerProcessorRestartable,

    /// <summary>One cell per partition of <see cref="ProcessorId.PartitionCount"/>, picked by the cached processor id and updated with <see cref="Interlocked"/>.</summary>
    PerProcessorInterlocked,

    /// <summary>One cell per writing thread, written by that thread alone with plain stores.</summary>
    PerThread,
}
