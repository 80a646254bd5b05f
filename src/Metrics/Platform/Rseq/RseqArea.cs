using ScalableMetrics.Platform.Interop;

namespace ScalableMetrics.Platform.Rseq;

/// <summary>
/// What glibc and the kernel say about the process's rseq areas: where a thread's
/// <c>struct rseq</c> lies, whether glibc registered one, and which fields the kernel fills.
/// </summary>
/// <remarks>
/// glibc 2.35+ registers an area for every thread it starts and exports its offset from the
/// thread pointer (<c>__rseq_offset</c>) and its registered size (<c>__rseq_size</c>, 0 where it
/// did not register: kernel before 4.18, or <c>glibc.pthread.rseq=0</c>). Linux 6.3+ reports in
/// <c>AT_RSEQ_FEATURE_SIZE</c> how much of the area it fills. Thread-safe.
/// </remarks>
internal static unsafe class RseqArea
{
    /// <summary>Reads glibc's registration.</summary>
    /// <param name="offset">The area's offset from the thread pointer; 0 on failure.</param>
    /// <returns>Why there is no usable area, or null.</returns>
    public static string? TryGetOffset(out long offset)
    {
        offset = 0;
        if (!Libc.IsAvailable)
        {
            return "no C library was loaded";
        }

        nint offsetAddress = Libc.GetDataExport("__rseq_offset");
        nint sizeAddress = Libc.GetDataExport("__rseq_size");
        if (offsetAddress == 0 || sizeAddress == 0)
        {
            return "the C library exports no __rseq_offset (glibc 2.35 or later is needed)";
        }

        if (*(uint*)sizeAddress == 0)
        {
            return "glibc did not register an rseq area (kernel older than 4.18, or glibc.pthread.rseq=0)";
        }

        offset = *(nint*)offsetAddress;
        return null;
    }

    /// <summary>How many bytes of <c>struct rseq</c> the kernel fills (<c>AT_RSEQ_FEATURE_SIZE</c>); 0 before Linux 6.3 or off Linux.</summary>
    public static int KernelFeatureSize => Libc.IsAvailable ? (int)Math.Min(Libc.GetAuxVal(RseqAbi.AtRseqFeatureSize), int.MaxValue) : 0;

    /// <summary>Whether the kernel fills <c>mm_cid</c> (and <c>node_id</c>): Linux 6.3+.</summary>
    public static bool KernelFillsMmCid => KernelFeatureSize >= RseqAbi.MmCidFeatureSize;

    /// <summary>
    /// Disarms the calling thread's critical section: writes 0 to its area's <c>rseq_cs</c>. A
    /// restartable add leaves its descriptor armed when it returns (the kernel clears it at the
    /// thread's next preemption, after reading it); before its memory is unmapped, a thread that
    /// called it must disarm, or the kernel, reading an unmapped descriptor, kills the thread with
    /// <c>SIGSEGV</c>; that holds for a thread that has ended too, which may still be preempted in
    /// its exit after <see cref="Thread.Join()"/> has returned. Call outside any critical section
    /// (that is, from managed code).
    /// </summary>
    /// <param name="offset">The area's offset (see <see cref="TryGetOffset"/>).</param>
    public static void DisarmCurrentThread(long offset) =>
        Volatile.Write(ref *(long*)(Libc.PThreadSelf() + (nint)offset + RseqAbi.RseqCsOffset), 0);

    /// <summary>
    /// Reads the calling thread's <paramref name="field"/> straight from its area, at
    /// <c>pthread_self() + offset</c>: glibc on x86-64 keeps the thread pointer (the <c>fs</c>
    /// base) and <c>pthread_self()</c> equal. Independent of the generated code; for its
    /// self-test, tests and measurements.
    /// </summary>
    /// <param name="offset">The area's offset (see <see cref="TryGetOffset"/>).</param>
    /// <param name="field">The id to read.</param>
    /// <returns>The id, as the kernel last wrote it for this thread.</returns>
    public static int ReadCurrentThreadId(long offset, RseqIdField field) =>
        Volatile.Read(ref *(int*)(Libc.PThreadSelf() + (nint)offset + (field == RseqIdField.MmCid ? RseqAbi.MmCidOffset : RseqAbi.CpuIdOffset)));
}
