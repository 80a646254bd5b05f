using System.Runtime.CompilerServices;
using ScalableMetrics.Cells;
using ScalableMetrics.Instruments;

namespace ScalableMetrics;

/// <summary>
/// One series of a <see cref="PartitionedCounter"/>, bound to a fixed tag set: the handle for
/// the hot path, where an add allocates nothing and is, by the registry's
/// <see cref="Diagnostics.WritePath"/>, a plain add to the current processor's slot inside a
/// restartable sequence (no atomic instruction), a cached processor-id read and one atomic add to
/// that processor's slot, or a plain store to the thread's own slot. The value saturates at
/// <see cref="long.MaxValue"/>.
/// </summary>
/// <remarks>
/// <para>Thread-safe. Get one from <see cref="SeriesInstrument{TSeries}.Bind">PartitionedCounter.Bind</see>, once, and keep it.</para>
/// <para>With <see cref="MetricRegistryOptions.ExemplarFilter"/> on, an add the filter samples is
/// also kept as the calling partition's <see cref="Exemplar"/>, after the add; off, an add runs the
/// same instructions as in a registry without exemplars (see <see cref="ExemplarFilter.None"/>).</para>
/// </remarks>
public sealed class CounterSeries : PartitionedSeries
{
    /// <summary>The slots a counter series takes in each region: its sum.</summary>
    internal const int SlotCount = 1;

    internal CounterSeries(TagSet tags, PartitionArena arena, ExemplarFilter exemplarFilter = ExemplarFilter.None)
        : base(tags, arena, SlotCount, exemplarFilter, SlotCount)
    {
    }

    /// <summary>Adds <paramref name="value"/>.</summary>
    /// <param name="value">The increment, zero or positive.</param>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="value"/> is negative; nothing is recorded.</exception>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public void Add(long value)
    {
        if (value < 0)
        {
            ThrowHelper.ThrowNegativeIncrement(nameof(value), value);
        }

        Add<SaturatingCell, long>(0, value);
    }

    /// <summary>Adds <paramref name="value"/>, known to be zero or positive.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    internal void AddValid(long value) => Add<SaturatingCell, long>(0, value);

    /// <summary>Adds 1.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public void Increment() => Add<SaturatingCell, long>(0, 1);

    /// <summary>Sums the series' partitions: the total added since it was created.</summary>
    /// <returns>The cumulative value, at most <see cref="long.MaxValue"/>; never lower than a value an earlier call returned.</returns>
    public long Read() => ReadSlot(0);

    /// <summary>The newest exemplar kept, or null where none was (or the registry keeps none).</summary>
    internal Exemplar? ReadExemplar() => Exemplars?.ReadNewest(0);
}
