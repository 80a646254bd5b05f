using ScalableMetrics.Platform;

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
    /// One padded cell per thread index, written by the thread that holds the index alone with
    /// plain stores, no atomic instruction (the single-writer principle, seed 004). A thread
    /// takes an index when it first writes any per-thread series and keeps it while it lives; an
    /// ended thread's index, and so its cells with their values, go to a later thread. Memory:
    /// 128 bytes per series per index handed out (about twice the peak of live writer threads,
    /// plus 64), and less than twice that where a series has outgrown its first array. Cost: an
    /// add first reads the thread's index from a thread static, which .NET 10 on linux-x64 reads
    /// with a call to glibc's <c>__tls_get_addr</c>, about half of a per-thread add there (on a
    /// 2-core VM, one thread: 2.63 × cheaper per add than <see cref="Interlocked"/> in
    /// BenchmarkDotNet, 1.76 × to 1.90 × in the scaling harness; <c>perf/results/README.md</c>).
    /// </summary>
    PerThread = 1,
}
