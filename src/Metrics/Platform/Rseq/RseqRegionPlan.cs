namespace ScalableMetrics.Platform.Rseq;

/// <summary>
/// How the restartable adds pick a region (<see cref="RseqPartitionBounds.Choose"/>): the id read
/// from the thread's rseq area, the regions it indexes (the overflow region comes after them), and
/// the map from id to region where the id is not the region itself.
/// </summary>
/// <param name="IdField">The id the add reads.</param>
/// <param name="PartitionCount">The regions: an id (or its mapped region) at or above it has none, and its add is refused.</param>
/// <param name="RegionOfId">The region of each id, <see cref="RseqPartitionBounds.NoRegion"/> where it has none; null where the id is the region.</param>
/// <param name="Reason">The choice in words, for the start-up log.</param>
internal sealed record RseqRegionPlan(RseqIdField IdField, int PartitionCount, ushort[]? RegionOfId, string Reason)
{
    /// <summary>The region id <paramref name="id"/> adds to, or -1 where it has none (its adds go to the overflow region).</summary>
    /// <param name="id">A value of <see cref="IdField"/>.</param>
    public int RegionOf(int id) => RegionOfId is { } map
        ? ((uint)id < (uint)map.Length && map[id] < PartitionCount ? map[id] : -1)
        : ((uint)id < (uint)PartitionCount ? id : -1);
}
