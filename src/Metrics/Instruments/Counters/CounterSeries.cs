using System.Runtime.CompilerServices;
using ScalableMetrics.Cells;

namespace ScalableMetrics;

/// <summary>
/// One series of a <see cref="PartitionedCounter"/>, bound to a fixed tag set: a
/// <see cref="CounterSeries{TValue}"/> of <see cref="long"/> values, whose total saturates at
/// <see cref="long.MaxValue"/>.
/// </summary>
/// <remarks>Thread-safe. Get one from <see cref="SeriesInstrument{TSeries}.Bind">PartitionedCounter.Bind</see>, once, and keep it.</remarks>
public sealed class CounterSeries : CounterSeries<long>
{
    internal CounterSeries(TagSet tags, PartitionArena arena, ExemplarFilter exemplarFilter = ExemplarFilter.None)
        : base(tags, arena, exemplarFilter)
    {
    }

    /// <summary>Adds 1.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public void Increment() => Add<SaturatingCell, long>(0, 1);
}
