using System.Runtime.CompilerServices;
using ScalableMetrics.Cells;
using ScalableMetrics.Instruments;

namespace ScalableMetrics;

/// <summary>
/// One series of a <see cref="PartitionedDoubleCounter"/>, bound to a fixed tag set: adds without
/// a lookup and without allocating, each to the calling partition's slot.
/// </summary>
/// <remarks>
/// Thread-safe. Get one from <see cref="SeriesInstrument{TSeries}.Bind">PartitionedDoubleCounter.Bind</see>, once, and keep it.
/// The partitions are summed as doubles at a read (subject to floating-point rounding as any sum
/// of doubles is); every increment is zero or positive, so no partition ever goes down.
/// With <see cref="MetricRegistryOptions.ExemplarFilter"/> on, an add the filter samples is also
/// kept as the calling partition's <see cref="Exemplar"/>, after the add.
/// </remarks>
public sealed class DoubleCounterSeries : PartitionedSeries
{
    /// <summary>The slots a double counter series takes in each region: its total.</summary>
    internal const int SlotCount = 1;

    internal DoubleCounterSeries(TagSet tags, PartitionArena arena, ExemplarFilter exemplarFilter = ExemplarFilter.None)
        : base(tags, arena, SlotCount, exemplarFilter, SlotCount)
    {
    }

    /// <summary>Adds <paramref name="value"/>.</summary>
    /// <param name="value">The increment, zero or positive and finite.</param>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="value"/> is negative, NaN or infinite; nothing is recorded.</exception>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public void Add(double value)
    {
        // One comparison pair refuses NaN (every comparison with it is false), negatives and +∞.
        if (!(value >= 0 && value < double.PositiveInfinity))
        {
            ThrowHelper.ThrowBadDoubleIncrement(nameof(value), value);
        }

        Add<DoubleCell, double>(0, value);
    }

    /// <summary>Adds <paramref name="value"/>, known to be zero or positive and finite.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    internal void AddValid(double value) => Add<DoubleCell, double>(0, value);

    /// <summary>Sums the series' partitions: the total added since it was created, at most
    /// <see cref="double.MaxValue"/> (increments past it saturate there, as a <see cref="CounterSeries"/>'s
    /// do at <see cref="long.MaxValue"/>).</summary>
    /// <returns>The cumulative value.</returns>
    public double Read() => SaturateTotal(ReadSlotDouble(0));
}
