using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using ScalableMetrics.Cells;
using ScalableMetrics.Instruments;
using ScalableMetrics.Snapshots;

namespace ScalableMetrics;

/// <summary>
/// One series of a <see cref="PartitionedDoubleCounter"/>, bound to a fixed tag set: adds without
/// a lookup and without allocating, each to the calling partition's slot.
/// </summary>
/// <remarks>
/// Thread-safe. Get one from <see cref="PartitionedDoubleCounter.Bind"/>, once, and keep it.
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
    public double Read() => Saturate(ReadSlotDouble(0));

    /// <summary>Reads every series in <paramref name="series"/> (all of <paramref name="arena"/>) into <paramref name="snapshot"/>'s values, in one pass over the arena, each saturated as <see cref="Read"/> is.</summary>
    internal static void ReadAllInto(PartitionArena arena, ReadOnlySpan<DoubleCounterSeries> series, InstrumentSnapshot snapshot)
    {
        Span<double> values = snapshot.Doubles();
        ReadAll(arena, series, snapshot.Ranges(series.Length), SlotCount, doubleSlot: -1, MemoryMarshal.Cast<double, long>(values), default, SlotSum.Double);
        foreach (ref double value in values)
        {
            value = Saturate(value);
        }
    }

    // Increments are finite and not negative, so an infinite slot or sum is finite adds past
    // double's range: read as double.MaxValue, never +∞, which would stay for good and which the
    // counter refuses as an increment for that very reason.
    private static double Saturate(double sum) => sum == double.PositiveInfinity ? double.MaxValue : sum;
}
