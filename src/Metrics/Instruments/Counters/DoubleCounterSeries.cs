using ScalableMetrics.Cells;

namespace ScalableMetrics;

/// <summary>
/// One series of a <see cref="PartitionedDoubleCounter"/>, bound to a fixed tag set: a
/// <see cref="CounterSeries{TValue}"/> of <see cref="double"/> values (bytes, seconds).
/// </summary>
/// <remarks>
/// Thread-safe. Get one from <see cref="SeriesInstrument{TSeries}.Bind">PartitionedDoubleCounter.Bind</see>, once, and keep it.
/// The partitions are summed as doubles at a read (subject to floating-point rounding as any sum
/// of doubles is); every increment is zero or positive, so no partition ever goes down.
/// </remarks>
public sealed class DoubleCounterSeries : CounterSeries<double>
{
    internal DoubleCounterSeries(TagSet tags, PartitionArena arena, ExemplarFilter exemplarFilter = ExemplarFilter.None)
        : base(tags, arena, exemplarFilter)
    {
    }
}
