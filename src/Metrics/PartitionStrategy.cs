namespace ScalableMetrics;

/// <summary>
/// How a series' data is partitioned so that concurrent writers do not share a cache line.
/// </summary>
public enum PartitionStrategy
{
    /// <summary>
    /// One padded cell per processor. Where <see cref="RestartableSequence.IsSupported"/> (Linux
    /// x86-64, glibc 2.35 or later), an add reads the processor id and adds to its cell with a
    /// plain add inside a restartable sequence, which the kernel restarts if the thread is moved
    /// in between: no atomic instruction. Elsewhere the cell is picked by the processor id the
    /// operating system reports (cached per thread; see <see cref="ProcessorId"/>) and updated
    /// with <see cref="Interlocked"/>, so that a thread that migrates between reading its
    /// processor id and adding still never loses an increment. Memory: 128 bytes per processor
    /// per series (per processor id in the affinity mask, plus one, with restartable sequences).
    /// Where no processor id can be had (<see cref="ProcessorId.IsSupported"/> is
    /// <see langword="false"/>), a registry asked for this strategy uses <see cref="PerThread"/>.
    /// </summary>
    PerProcessor = 0,

    /// <summary>
    /// One padded cell per thread that writes the series, written by that thread alone with
    /// plain stores, no atomic instruction (the single-writer principle, seed 004). Cells are
    /// kept in a list that collection reads; a cell whose thread has ended is folded into a
    /// retired total exactly once. Memory: about 150 bytes per writing thread per series.
    /// Suits a fixed set of long-lived threads; heavy thread churn costs a cell per new thread.
    /// </summary>
    PerThread = 1,
}
