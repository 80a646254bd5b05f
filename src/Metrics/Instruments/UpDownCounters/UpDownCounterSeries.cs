using System.Runtime.CompilerServices;
using ScalableMetrics.Cells;

namespace ScalableMetrics;

/// <summary>
/// One series of a <see cref="PartitionedUpDownCounter"/>, bound to a fixed tag set: an
/// <see cref="UpDownCounterSeries{TValue}"/> of <see cref="long"/> values, each partition's slot
/// wrapping, so that the total is exact whenever it fits a <see cref="long"/>.
/// </summary>
/// <remarks>Thread-safe. Get one from <see cref="SeriesInstrument{TSeries}.Bind">PartitionedUpDownCounter.Bind</see>, once, and keep it.</remarks>
public sealed class UpDownCounterSeries : UpDownCounterSeries<long>
{
    internal UpDownCounterSeries(TagSet tags, PartitionArena arena)
        : base(tags, arena)
    {
    }

    /// <summary>Adds 1.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public void Increment() => Add<WrappingCell, long>(0, 1);

    /// <summary>Adds -1.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public void Decrement() => Add<WrappingCell, long>(0, -1);
}
