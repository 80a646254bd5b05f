using System.Runtime.CompilerServices;
using ScalableMetrics.Cells;
using ScalableMetrics.Instruments;

namespace ScalableMetrics;

/// <summary>
/// One series of a <see cref="PartitionedUpDownCounter"/>, bound to a fixed tag set: adds of either
/// sign without a lookup and without allocating, each to the calling partition's slot.
/// </summary>
/// <remarks>
/// <para>Thread-safe. Get one from <see cref="SeriesInstrument{TSeries}.Bind">PartitionedUpDownCounter.Bind</see>, once, and keep it.</para>
/// <para>Each partition's slot wraps (two's complement), so a partition may hold any value (one
/// thread increments, another decrements): the wrapping sum of the partitions is the exact total
/// whenever the total fits a <see cref="long"/>, and wraps only if the total itself leaves it.</para>
/// </remarks>
public sealed class UpDownCounterSeries : PartitionedSeries
{
    /// <summary>The slots an up-down counter series takes in each region: its total.</summary>
    internal const int SlotCount = 1;

    internal UpDownCounterSeries(TagSet tags, PartitionArena arena)
        : base(tags, arena, SlotCount)
    {
    }

    /// <summary>Adds <paramref name="value"/>, of either sign.</summary>
    /// <param name="value">The change.</param>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public void Add(long value) => Add<WrappingCell, long>(0, value);

    /// <summary>Adds 1.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public void Increment() => Add<WrappingCell, long>(0, 1);

    /// <summary>Adds -1.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public void Decrement() => Add<WrappingCell, long>(0, -1);

    /// <summary>Sums the series' partitions: the total added since it was created.</summary>
    /// <returns>The total (wrapped only if it left <see cref="long"/>).</returns>
    public long Read() => ReadSlotWrapping(0);
}
