using ScalableMetrics.Cells;

namespace ScalableMetrics.Tests.Cells;

/// <summary>
/// A series of every slot kind, for tests of the write paths' wrapping and double adds without an
/// instrument: slot 0 wrapping, slot 1 a double, slot 2 a saturating count (a histogram's bucket
/// beside slot 1 as its sum).
/// </summary>
internal sealed class SlotKindsSeries : PartitionedSeries
{
    public const int WrappingSlot = 0;
    public const int DoubleSlot = 1;
    public const int CountSlot = 2;
    public const int SlotCount = 3;

    public SlotKindsSeries(MetricRegistry registry)
        : base(TagSet.Empty, registry.Arena, SlotCount)
    {
    }

    public void AddWrapping(long value) => Add<WrappingCell, long>(WrappingSlot, value);

    public void AddDouble(double value) => Add<DoubleCell, double>(DoubleSlot, value);

    public void AddCountAndDouble(double value) => AddCountAndValue<DoubleCell, double>(CountSlot, DoubleSlot, value);

    public long ReadWrapping() => ReadSlotWrapping(WrappingSlot);

    public double ReadDouble() => ReadSlotDouble(DoubleSlot);

    public long ReadCount() => ReadSlot(CountSlot);

    /// <summary>Every slot of every series, summed by <paramref name="kind"/> through the arena's vectorized read (series i's slot k at i × <see cref="SlotCount"/> + k).</summary>
    public static long[] ReadAll(MetricRegistry registry, IReadOnlyList<SlotKindsSeries> series, SlotSum kind)
    {
        long[] totals = new long[series.Count * SlotCount];
        ReadAll<SlotKindsSeries>(registry.Arena, [.. series], new SlotRange[series.Count], SlotCount, doubleSlot: -1, totals, default, kind);
        return totals;
    }
}
