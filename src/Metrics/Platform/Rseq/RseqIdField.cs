namespace ScalableMetrics.Platform.Rseq;

/// <summary>Which id in the thread's <c>struct rseq</c> area picks the region a restartable add writes.</summary>
internal enum RseqIdField
{
    /// <summary><c>cpu_id</c>: the processor the thread runs on; the region itself where the allowed processors are 0 to k - 1, else looked up in a map of them (<see cref="RseqPartitionBounds"/>).</summary>
    CpuId,

    /// <summary>
    /// <c>mm_cid</c> (Linux 6.3+): a compact concurrency id, unique among the process's threads
    /// running at one time and kept below the number of processors the process may run on (6.13+),
    /// so a process confined to a few processors of a big machine needs few regions.
    /// </summary>
    MmCid,
}
