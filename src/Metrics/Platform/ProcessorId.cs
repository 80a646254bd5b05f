using System.Runtime.CompilerServices;
using ScalableMetrics.Cells;
using ScalableMetrics.Platform.Interop;

namespace ScalableMetrics.Platform;

/// <summary>
/// The number of the processor the calling thread runs on, read from the operating system and
/// cached per thread, after Thomas Kejser, "Synchronisation in .NET, Part 4: Partitioned Data Structures"
/// (<c>GetCurrentProcessorNumber()</c> kept in a <c>[ThreadStatic]</c>) and the runtime's <c>ProcessorIdCache</c>.
/// </summary>
/// <remarks>
/// <para>The operating system call is <c>sched_getcpu</c> on Linux (glibc or musl, through
/// <see cref="Libc"/>) and <c>GetCurrentProcessorNumberEx</c> on Windows (group × 64 + number;
/// <see cref="Kernel32"/>). Other systems report
/// <see cref="IsSupported"/> = <see langword="false"/>, and registries fall back to
/// <see cref="PartitionStrategy.PerThread"/>.</para>
/// <para>All members are thread-safe. A cached id can be stale for up to
/// <see cref="RefreshInterval"/> reads after the thread migrates; that costs only contention,
/// never correctness, because per-processor cells are updated with <see cref="Interlocked"/>.</para>
/// </remarks>
internal static unsafe class ProcessorId
{
    /// <summary>
    /// How many reads of the cached id a thread makes before it asks the operating system again.
    /// </summary>
    /// <remarks>
    /// Chosen by measurement (<c>perf/Benchmarks</c>, categories <c>processor-id</c> and
    /// <c>refresh-interval</c>; the figures are in <c>perf/results/README.md</c>, "The processor-id
    /// cache"): the operating system call costs a few cached reads, so at 64 its share of the
    /// average read is a small fraction of a cached read, while a thread the scheduler has moved
    /// keeps adding to its former processor's cell (correct, only contended) for at most 64 adds.
    /// Refreshing on every read cost several times a cached read; beyond 64 the gain was lost in the noise.
    /// </remarks>
    public const int RefreshInterval = 64;

    /// <summary>
    /// The number of per-processor partitions: the processors the process may run on
    /// (<see cref="ProcessorSet.Current"/>, the reading the restartable path sizes its regions by
    /// too), or <see cref="Environment.ProcessorCount"/> where no affinity mask can be read.
    /// </summary>
    /// <remarks>Processor ids map to partitions densely (<see cref="ProcessorRegions"/>): the
    /// processors the process may run on take one partition each, so a cpuset whose ids share
    /// residues modulo this number still uses every partition; a processor first seen later (brought
    /// online, or a widened mask) shares a partition of its own core or socket.</remarks>
    public static int PartitionCount { get; } = ProcessorSet.Current.Count;

    // Processor id to partition, dense and append-only; consulted only when a thread refreshes its id.
    private static readonly ProcessorRegions s_regions = ProcessorRegions.For(ProcessorSet.Current, PartitionCount);

    /// <summary>Whether the operating system reports processor ids to this process.</summary>
    public static bool IsSupported { get; } = ReadFromOperatingSystem() >= 0;

    // The partition and the reads left before a refresh are packed in one int
    // (ThreadStatics.t_partitionAndReadsLeft) as the runtime's ProcessorIdCache packs them: one
    // primitive thread static is a single TLS load and store, where a struct thread static is
    // boxed and costs two more dependent loads (seen in the JIT's output).
    // Layout: partition << ReadsLeftBits | readsLeft. Zero (a new thread) means "refresh now".
    private const int ReadsLeftBits = 16;
    private const int ReadsLeftMask = (1 << ReadsLeftBits) - 1;

    /// <summary>
    /// Asks the operating system which processor the calling thread runs on, uncached.
    /// </summary>
    /// <returns>The processor id (0-based), or -1 where the operating system cannot say.</returns>
    public static int ReadFromOperatingSystem()
    {
        if (OperatingSystem.IsLinux())
        {
            delegate* unmanaged[Cdecl, SuppressGCTransition]<int> schedGetCpu = Libc.SchedGetCpu;
            return schedGetCpu != null ? schedGetCpu() : -1;
        }

        return OperatingSystem.IsWindows() ? ReadOnWindows() : -1;
    }

    // Out of line: a P/Invoke without a GC transition is bound when its caller is compiled, so
    // kernel32 must not be named in a method that other systems compile.
    [MethodImpl(MethodImplOptions.NoInlining)]
    private static int ReadOnWindows()
    {
        Kernel32.ProcessorNumber number;
        Kernel32.GetCurrentProcessorNumberEx(&number);
        return (number.Group * 64) + number.Number;
    }

    /// <summary>
    /// The calling thread's partition: its cached processor id mapped below
    /// <see cref="PartitionCount"/> (<see cref="ProcessorRegions"/>), refreshed every <see cref="RefreshInterval"/> reads.
    /// </summary>
    /// <returns>A partition index in [0, <see cref="PartitionCount"/>).</returns>
    /// <remarks>Call only where <see cref="IsSupported"/> is <see langword="true"/>; otherwise it returns 0.</remarks>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static int CurrentPartition()
    {
        // One reference for the load and the store: on Linux each access to a thread static is a
        // call to __tls_get_addr, and inlined into a caller's loop the JIT made a second call for
        // the store (perf/results/README.md, "The Interlocked add's thread static").
        ref int partitionAndReadsLeft = ref ThreadStatics.t_partitionAndReadsLeft;
        int cached = partitionAndReadsLeft;
        if ((cached & ReadsLeftMask) != 0)
        {
            partitionAndReadsLeft = cached - 1;
            return cached >> ReadsLeftBits;
        }

        return RefreshPartition();
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static int RefreshPartition()
    {
        int id = ReadFromOperatingSystem();
        int partition = id < 0 ? 0 : s_regions.PartitionOf(id);
        ThreadStatics.t_partitionAndReadsLeft = (partition << ReadsLeftBits) | (RefreshInterval - 1);
        return partition;
    }
}
