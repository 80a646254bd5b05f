using ScalableMetrics.Platform;
using ScalableMetrics.Platform.Rseq;

namespace ScalableMetrics;

/// <summary>
/// How a series' data is partitioned so that concurrent writers do not share a cache line.
/// </summary>
/// <remarks>
/// Either way, a series with a copy per partition (promoted when contended, by default, or from
/// creation: <see cref="SeriesStorage"/>) keeps one 8-byte slot per partition in the registry's
/// arena: one region per partition, 128-byte aligned, in which many series' slots sit side by side
/// (only that partition writes it, so neighbours never contend). Which instruction an add uses is
/// the registry's <see cref="Diagnostics.WritePath"/>.
/// </remarks>
public enum PartitionStrategy
{
    /// <summary>
    /// One region per processor. Where <see cref="RestartableSequence.IsSupported"/> (Linux
    /// x86-64, glibc 2.35 or later), an add reads the processor id and adds to its slot with a
    /// plain add inside a restartable sequence, which the kernel restarts if the thread is moved
    /// in between: no atomic instruction. Elsewhere the region is picked by the processor id the
    /// operating system reports (cached per thread; see <see cref="ProcessorId"/>) and the slot
    /// updated with <see cref="Interlocked"/>, so that a thread that migrates between reading its
    /// processor id and adding still never loses an increment. Memory: 8 bytes per partition per
    /// counter series (<see cref="MetricRegistry.PartitionCount"/>: the processors in the affinity
    /// mask, plus one overflow region with restartable sequences), 16 per operation series, plus
    /// the unused tail of the arena's last chunk. Where no processor id can be had
    /// (<see cref="ProcessorId.IsSupported"/> is <see langword="false"/>), a registry asked for
    /// this strategy uses <see cref="PerThread"/>.
    /// </summary>
    PerProcessor = 0,

    /// <summary>
    /// One region per thread index, written by the thread that holds the index alone with plain
    /// stores, no atomic instruction (the single-writer principle: Martin Thompson, "Single Writer Principle"). A thread takes an
    /// index when it first writes any per-thread series and keeps it while it lives; an ended
    /// thread's index, and so its slots with their values, go to a later thread. Memory: 8 bytes
    /// per counter series per thread index its chunk has regions for. Indexes are bounded: the
    /// index table is swept for ended threads each time it doubles, so it stays within about
    /// twice the peak of live writer threads plus 64, however many threads come and go; a series
    /// whose writer's index is past its regions moves to a chunk with at least twice the regions
    /// and keeps its old slots (summed, never copied), which together hold fewer regions than
    /// the new ones. Cost: an add first reads the thread's index from a thread static, which
    /// .NET 10 on linux-x64 reads with a call to glibc's <c>__tls_get_addr</c>, about half of a
    /// per-thread add there (<c>perf/results/README.md</c>).
    /// </summary>
    PerThread = 1,
}
