using ScalableMetrics.Platform.Rseq;

namespace ScalableMetrics.Diagnostics;

/// <summary>
/// How a registry's series take an add: which partition's region the add goes to, and with what
/// instruction. Chosen once per registry (<see cref="MetricRegistry.WritePath"/>, with the reason
/// in <see cref="MetricRegistry.WritePathReason"/>).
/// </summary>
[System.Diagnostics.CodeAnalysis.SuppressMessage("Design", "CA1028:Enum storage should be Int32", Justification = "One byte in every series object.")]
public enum WritePath : byte
{
    /// <summary>
    /// One region per processor id, added to with a plain add inside a Linux restartable sequence
    /// (no atomic instruction; the kernel restarts the add if the thread is moved or signalled),
    /// plus one overflow region, added to with <see cref="Interlocked"/>, for processor ids past
    /// the regions (processors brought online after start). Linux x86-64 with glibc 2.35 or later.
    /// </summary>
    RestartableSequence = 0,

    /// <summary>
    /// One region per processor, picked by the processor id the operating system reports (cached
    /// per thread) and added to with an <see cref="Interlocked"/> compare-and-swap, so that a thread
    /// moved between reading its id and adding never loses an add.
    /// </summary>
    InterlockedProcessorId = 1,

    /// <summary>
    /// One region per thread index (see <see cref="PartitionStrategy.PerThread"/>), written by the
    /// thread holding the index alone, with plain stores.
    /// </summary>
    PerThread = 2,
}
