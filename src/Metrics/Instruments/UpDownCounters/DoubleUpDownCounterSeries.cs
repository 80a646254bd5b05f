using System.Runtime.CompilerServices;
using ScalableMetrics.Cells;
using ScalableMetrics.Instruments;

namespace ScalableMetrics;

/// <summary>
/// One series of a <see cref="PartitionedDoubleUpDownCounter"/>, bound to a fixed tag set: adds of
/// either sign without a lookup and without allocating, each to the calling partition's slot.
/// </summary>
/// <remarks>
/// Thread-safe. Get one from <see cref="SeriesInstrument{TSeries}.Bind">PartitionedDoubleUpDownCounter.Bind</see>, once, and keep it.
/// The partitions are summed as doubles at a read, so the total is subject to floating-point
/// rounding as any sum of doubles is (exact for values such as multiples of a power of two that stay within 2^53 units).
/// </remarks>
public sealed class DoubleUpDownCounterSeries : PartitionedSeries
{
    /// <summary>The slots a double up-down counter series takes in each region: its total.</summary>
    internal const int SlotCount = 1;

    internal DoubleUpDownCounterSeries(TagSet tags, PartitionArena arena)
        : base(tags, arena, SlotCount)
    {
    }

    /// <summary>Adds <paramref name="value"/>, of either sign.</summary>
    /// <param name="value">The change, finite.</param>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="value"/> is NaN or infinite; nothing is recorded.</exception>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public void Add(double value)
    {
        if (!double.IsFinite(value))
        {
            ThrowHelper.ThrowNotFinite(nameof(value), value);
        }

        Add<DoubleCell, double>(0, value);
    }

    /// <summary>Adds <paramref name="value"/>, known to be finite.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    internal void AddValid(double value) => Add<DoubleCell, double>(0, value);

    /// <summary>Sums the series' partitions: the total added since it was created, within
    /// ±<see cref="double.MaxValue"/> (finite increments past it saturate there).</summary>
    /// <returns>The total.</returns>
    public double Read() => SaturateTotal(ReadSlotDouble(0));
}
