using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;

namespace ScalableMetrics;

/// <summary>
/// The number of the processor the calling thread runs on, read from the operating system and
/// cached per thread, after seed 001 (Kejser: <c>GetCurrentProcessorNumber()</c> kept in a
/// <c>[ThreadStatic]</c>) and the runtime's <c>ProcessorIdCache</c>.
/// </summary>
/// <remarks>
/// <para>The operating system call is <c>sched_getcpu</c> on Linux and
/// <c>GetCurrentProcessorNumberEx</c> on Windows (group × 64 + number). Other systems report
/// <see cref="IsSupported"/> = <see langword="false"/>, and registries fall back to
/// <see cref="PartitionStrategy.PerThread"/>.</para>
/// <para>All members are thread-safe. A cached id can be stale for up to
/// <see cref="RefreshInterval"/> reads after the thread migrates; that costs only contention,
/// never correctness, because per-processor cells are updated with <see cref="Interlocked"/>.</para>
/// </remarks>
public static unsafe class ProcessorId
{
    /// <summary>
    /// How many reads of the cached id a thread makes before it asks the operating system again.
    /// </summary>
    /// <remarks>
    /// Chosen by measurement (<c>perf/Benchmarks</c>, <c>ProcessorIdBenchmarks</c>, 2-core x64
    /// Linux VM, .NET 10): <c>sched_getcpu</c> through a function pointer costs about 6.6 ns and a
    /// cached read about 1.3 ns; refreshing every 64 reads adds 6.6 / 64 ≈ 0.1 ns to the average
    /// read, and a migrated thread keeps adding to its former processor's cell for at most 64
    /// adds. The runtime's <see cref="Thread.GetCurrentProcessorId"/> does the same job and was
    /// measured side by side in the same run (see the benchmark file's header).
    /// </remarks>
    public const int RefreshInterval = 64;

    private static readonly delegate* unmanaged[Cdecl, SuppressGCTransition]<int> s_schedGetCpu;
    private static readonly delegate* unmanaged[Stdcall, SuppressGCTransition]<ProcessorNumber*, void> s_getCurrentProcessorNumberEx;

    /// <summary>The number of per-processor partitions: <see cref="Environment.ProcessorCount"/>, read once at start.</summary>
    /// <remarks>Processor ids at or above this number (a process limited by affinity or a container quota can see ids up to the machine's count) fold by modulo.</remarks>
    public static int PartitionCount { get; } = Math.Max(1, Environment.ProcessorCount);

    /// <summary>Whether the operating system reports processor ids to this process.</summary>
    public static bool IsSupported { get; }

    // Two primitive thread statics, not one struct: the runtime boxes a struct-typed static, and
    // reading it costs three more dependent loads after the TLS lookup (3.7 ns a read here,
    // against 1.6 ns for an int).
    [ThreadStatic]
    private static int t_partition;

    [ThreadStatic]
    private static int t_readsLeft;

    // Where glibc keeps the processor id in the thread's rseq area, sched_getcpu is a load through
    // the thread pointer (3.1 ns a call with the transition suppressed), cheaper than any cache
    // behind a [ThreadStatic], and never stale.
    private static readonly bool s_operatingSystemReadIsCheap;

    static ProcessorId()
    {
        if (OperatingSystem.IsLinux())
        {
            foreach (string library in (string[])["libc.so.6", "libc", "libc.musl-x86_64.so.1", "libc.musl-aarch64.so.1"])
            {
                if (NativeLibrary.TryLoad(library, out IntPtr handle) && NativeLibrary.TryGetExport(handle, "sched_getcpu", out IntPtr export))
                {
                    s_schedGetCpu = (delegate* unmanaged[Cdecl, SuppressGCTransition]<int>)export;

                    // glibc 2.35+ exports __rseq_size: non-zero when it registered rseq for its threads.
                    s_operatingSystemReadIsCheap = NativeLibrary.TryGetExport(handle, "__rseq_size", out IntPtr rseqSize) && *(uint*)rseqSize != 0;
                    break;
                }
            }
        }
        else if (OperatingSystem.IsWindows())
        {
            if (NativeLibrary.TryLoad("kernel32.dll", out IntPtr handle) && NativeLibrary.TryGetExport(handle, "GetCurrentProcessorNumberEx", out IntPtr export))
            {
                s_getCurrentProcessorNumberEx = (delegate* unmanaged[Stdcall, SuppressGCTransition]<ProcessorNumber*, void>)export;
            }
        }

        IsSupported = ReadFromOperatingSystem() >= 0;
    }

    /// <summary>
    /// Asks the operating system which processor the calling thread runs on, uncached.
    /// </summary>
    /// <returns>The processor id (0-based), or -1 where the operating system cannot say.</returns>
    public static int ReadFromOperatingSystem()
    {
        if (s_schedGetCpu != null)
        {
            return s_schedGetCpu();
        }

        if (s_getCurrentProcessorNumberEx != null)
        {
            ProcessorNumber number;
            s_getCurrentProcessorNumberEx(&number);
            return (number.Group * 64) + number.Number;
        }

        return -1;
    }

    /// <summary>
    /// The calling thread's partition: its cached processor id folded below
    /// <see cref="PartitionCount"/>, refreshed every <see cref="RefreshInterval"/> reads.
    /// </summary>
    /// <returns>A partition index in [0, <see cref="PartitionCount"/>).</returns>
    /// <remarks>Call only where <see cref="IsSupported"/> is <see langword="true"/>; otherwise it returns 0.</remarks>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static int CurrentPartition()
    {
        if (s_operatingSystemReadIsCheap)
        {
            // Ids below PartitionCount need no division; only a process that sees a higher id folds.
            int id = s_schedGetCpu();
            return (uint)id < (uint)PartitionCount ? id : Fold(id);
        }

        int readsLeft = t_readsLeft - 1;
        t_readsLeft = readsLeft;
        if (readsLeft >= 0)
        {
            return t_partition;
        }

        return RefreshPartition();
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static int RefreshPartition()
    {
        int partition = Fold(ReadFromOperatingSystem());
        t_partition = partition;
        t_readsLeft = RefreshInterval - 1;
        return partition;
    }

    private static int Fold(int id) => id < 0 ? 0 : (int)((uint)id % (uint)PartitionCount);

    [StructLayout(LayoutKind.Sequential)]
    private struct ProcessorNumber
    {
        public ushort Group;
        public byte Number;
        public byte Reserved;
    }
}
