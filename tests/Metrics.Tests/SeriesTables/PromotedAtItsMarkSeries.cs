using ScalableMetrics.Cells;

namespace ScalableMetrics.Tests.SeriesTables;

/// <summary>
/// A counter-like series of one saturating slot whose removal mark lets a test act at the one
/// instant between its retired entry being made (<c>Retire</c>, under the arena's read lock) and
/// its mark being set (<c>Series.MarkForRemoval</c>): what another thread's contended add may do
/// there, such as promote it.
/// </summary>
internal sealed class PromotedAtItsMarkSeries : PartitionedSeries
{
    public PromotedAtItsMarkSeries(TagSet tags, MetricRegistry registry)
        : base(tags, registry.Arena, slotCount: 1)
    {
    }

    /// <summary>Runs once, after the retired entry is made and before the mark is set.</summary>
    public Action? BetweenRetireAndMark { get; set; }

    public void Add(long value) => Add<SaturatingCell, long>(0, value);

    /// <summary>One collection's read of <paramref name="series"/> (a marked one's reading kept as its final one).</summary>
    public static long Collect(MetricRegistry registry, PromotedAtItsMarkSeries series)
    {
        long[] totals = new long[1];
        ReadAll<PromotedAtItsMarkSeries>(registry.Arena, [series], new SlotRange[1], slotsPerSeries: 1, doubleSlot: -1, totals, default);
        return totals[0];
    }

    private protected override void Retire()
    {
        base.Retire();
        Action? between = BetweenRetireAndMark;
        BetweenRetireAndMark = null;
        between?.Invoke();
    }
}
