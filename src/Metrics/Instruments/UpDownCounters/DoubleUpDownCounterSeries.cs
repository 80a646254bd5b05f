using ScalableMetrics.Cells;

namespace ScalableMetrics;

/// <summary>
/// One series of a <see cref="PartitionedDoubleUpDownCounter"/>, bound to a fixed tag set: an
/// <see cref="UpDownCounterSeries{TValue}"/> of <see cref="double"/> values, summed as doubles at a
/// read (exact for values such as multiples of a power of two that stay within 2^53 units).
/// </summary>
/// <remarks>Thread-safe. Get one from <see cref="SeriesInstrument{TSeries}.Bind">PartitionedDoubleUpDownCounter.Bind</see>, once, and keep it.</remarks>
public sealed class DoubleUpDownCounterSeries : UpDownCounterSeries<double>
{
    internal DoubleUpDownCounterSeries(TagSet tags, PartitionArena arena)
        : base(tags, arena)
    {
    }
}
