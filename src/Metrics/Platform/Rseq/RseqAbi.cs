namespace ScalableMetrics.Platform.Rseq;

/// <summary>
/// The Linux restartable-sequence ABI this project relies on: the layout of the per-thread
/// <c>struct rseq</c> area and of the <c>struct rseq_cs</c> critical-section descriptor, glibc's
/// signature, and the auxiliary-vector entries that tell which fields the kernel fills.
/// </summary>
/// <remarks>
/// Sources: the kernel's <c>include/uapi/linux/rseq.h</c> (layouts; <c>node_id</c> and
/// <c>mm_cid</c> since Linux 6.3, placed in what was padding of the original 32-byte area, so
/// every registered area has room for them), <c>include/uapi/linux/auxvec.h</c>
/// (<c>AT_RSEQ_FEATURE_SIZE</c> 27, <c>AT_RSEQ_ALIGN</c> 28, since 6.3), and glibc's
/// <c>sysdeps/unix/sysv/linux/x86/bits/rseq.h</c> (<c>RSEQ_SIG</c>). The constants are fixed by
/// the ABI: they never change once published.
/// </remarks>
internal static class RseqAbi
{
    /// <summary>Offset of <c>u32 cpu_id_start</c> in <c>struct rseq</c>: the processor id, always valid (0 where not registered).</summary>
    public const int CpuIdStartOffset = 0;

    /// <summary>Offset of <c>u32 cpu_id</c>: the processor id, or <see cref="CpuIdUninitialized"/> / <see cref="CpuIdRegistrationFailed"/>.</summary>
    public const int CpuIdOffset = 4;

    /// <summary>Offset of <c>u64 rseq_cs</c>: the address of the armed <c>struct rseq_cs</c>, 0 when none; the kernel clears it on restart.</summary>
    public const int RseqCsOffset = 8;

    /// <summary>Offset of <c>u32 flags</c> (deprecated by the kernel; unused here).</summary>
    public const int FlagsOffset = 16;

    /// <summary>Offset of <c>u32 node_id</c> (Linux 6.3+): the NUMA node of <c>cpu_id</c>.</summary>
    public const int NodeIdOffset = 20;

    /// <summary>Offset of <c>u32 mm_cid</c> (Linux 6.3+): the thread's concurrency id, unique among the process's threads running at one time.</summary>
    public const int MmCidOffset = 24;

    /// <summary>The <c>AT_RSEQ_FEATURE_SIZE</c> a kernel reports when it fills <c>mm_cid</c>: the end of that field.</summary>
    public const int MmCidFeatureSize = MmCidOffset + sizeof(uint);

    /// <summary><c>RSEQ_CPU_ID_UNINITIALIZED</c>: <c>cpu_id</c> of a thread whose area is not registered.</summary>
    public const int CpuIdUninitialized = -1;

    /// <summary><c>RSEQ_CPU_ID_REGISTRATION_FAILED</c>.</summary>
    public const int CpuIdRegistrationFailed = -2;

    /// <summary>Offset of <c>u32 version</c> in <c>struct rseq_cs</c> (must be 0).</summary>
    public const int DescriptorVersionOffset = 0;

    /// <summary>Offset of <c>u32 flags</c> in <c>struct rseq_cs</c>.</summary>
    public const int DescriptorFlagsOffset = 4;

    /// <summary>Offset of <c>u64 start_ip</c>: the first instruction of the critical section.</summary>
    public const int DescriptorStartIpOffset = 8;

    /// <summary>Offset of <c>u64 post_commit_offset</c>: the section's length, from <c>start_ip</c> to just after the commit.</summary>
    public const int DescriptorPostCommitOffsetOffset = 16;

    /// <summary>Offset of <c>u64 abort_ip</c>: where the kernel sends a thread it restarts; preceded by <see cref="Signature"/>.</summary>
    public const int DescriptorAbortIpOffset = 24;

    /// <summary>The size and the required alignment of <c>struct rseq_cs</c>.</summary>
    public const int DescriptorSize = 32;

    /// <summary><c>RSEQ_SIG</c> for x86: glibc registers its areas with it, and the 4 bytes before every abort address must hold it.</summary>
    public const uint Signature = 0x53053053;

    /// <summary><c>AT_RSEQ_FEATURE_SIZE</c>: the auxiliary-vector entry giving how much of <c>struct rseq</c> the kernel fills (absent before 6.3).</summary>
    public const int AtRseqFeatureSize = 27;

    /// <summary><c>AT_RSEQ_ALIGN</c>: the alignment the kernel requires of the area.</summary>
    public const int AtRseqAlign = 28;
}
