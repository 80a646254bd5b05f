namespace ScalableMetrics;

/// <summary>
/// Where a series keeps its data: one compact copy that every writer adds to atomically, a copy
/// per partition (<see cref="PartitionStrategy"/>), or the compact copy first and the per-partition
/// copies once the series is contended (<see cref="Adaptive"/>).
/// </summary>
/// <remarks>
/// <para>A copy per partition is what makes an add scale across cores, and what makes a series cost
/// memory and read time in proportion to the partitions (8 bytes per slot per partition, however
/// few processors ever write it). Most series of a service are written by one or two threads at a
/// time, where one atomic add on one copy is as fast as the partitioned add; <see cref="Adaptive"/>
/// spends partitions only where several threads write often, after the kernel's lazy percpu
/// counter (bcachefs <c>lib/lazy-percpu-counter.c</c>: one atomic until its update rate crosses a
/// threshold, then per-CPU) and java.util.concurrent's <c>Striped64</c> (<c>LongAdder</c>: one base
/// cell until a compare-and-swap on it fails, then cells per thread).</para>
/// <para>Exact whichever is chosen: a compact slot only ever takes atomic adds and a partition's slot
/// only its partition's adds (plus the overflow region's atomic ones), promotion only adds zeroed
/// per-partition slots and publishes them before any add is routed to them, and a read sums both, so
/// that no add is lost or counted twice and no read returns less than an earlier one.</para>
/// </remarks>
public enum SeriesStorage
{
    /// <summary>
    /// The default: a series starts compact and is promoted to a copy per partition when two threads
    /// write it often (two different threads' crossings of a multiple of 2^(10 + log2 |value|) by its
    /// total, about 1,024 adds apart, within 100 ms of each other; or, for a double slot, a failed
    /// compare-and-swap), where its copies fit in what is left of
    /// <see cref="MetricRegistryOptions.MaxPromotedBytes"/>; a series is never demoted. One thread
    /// alone never promotes its series, however fast it writes.
    /// </summary>
    Adaptive = 0,

    /// <summary>Every series keeps a copy per partition from its creation: the layout before compact series, for measuring it.</summary>
    PerPartition = 1,

    /// <summary>Every series keeps one compact copy, added to atomically by every writer, and is never promoted: the least memory, and the contention of a shared word where writers meet.</summary>
    Compact = 2,
}
