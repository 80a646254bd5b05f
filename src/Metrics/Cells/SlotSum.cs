namespace ScalableMetrics.Cells;

/// <summary>How a slot's partitions add up at a read: what the writers keep in it.</summary>
internal enum SlotSum
{
    /// <summary>Values in [0, <see cref="long.MaxValue"/>], written saturating; summed saturating (counters, bucket counts, elapsed ticks).</summary>
    Saturating,

    /// <summary>Any <see cref="long"/>, written wrapping (two's complement); summed wrapping, so that the total is exact whenever it fits a <see cref="long"/>, whatever each partition holds (up-down counters).</summary>
    Wrapping,

    /// <summary>The bits of a <see cref="double"/>; summed as doubles (double counters and up-down counters, histogram sums).</summary>
    Double,
}
