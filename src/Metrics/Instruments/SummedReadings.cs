using ScalableMetrics.Cells;
using ScalableMetrics.SeriesTables;

namespace ScalableMetrics.Instruments;

/// <summary>
/// The collection of a partitioned counter or up-down counter, written once for both value types
/// (<see cref="PartitionedCounter"/>, <see cref="PartitionedDoubleCounter"/>,
/// <see cref="PartitionedUpDownCounter"/>, <see cref="PartitionedDoubleUpDownCounter"/>).
/// </summary>
internal static class SummedReadings
{
    /// <summary>Sums every series' partitions, and reads each series' newest exemplar where it keeps them.</summary>
    /// <param name="series">The instrument's series.</param>
    /// <param name="arena">The arena of every series.</param>
    /// <param name="readAll">The series type's read of many series in one pass over the arena (<c>CounterSeries.ReadAll</c>), each summed as the series' own read sums it.</param>
    /// <param name="toReading">The reading of a series' tags, total and exemplar (null where it keeps none, or none was kept yet).</param>
    /// <returns>One reading per series, in no particular order.</returns>
    /// <remarks>Region by region, vectorized, over the series' slots; serialized with every other read of the registry's series.</remarks>
    public static TReading[] Collect<TSeries, TValue, TReading>(SeriesTable<TSeries> series, PartitionArena arena, Action<PartitionArena, TSeries[], Span<TValue>> readAll, Func<TagSet, TValue, Exemplar?, TReading> toReading)
        where TSeries : PartitionedSeries
    {
        TSeries[] all = [.. series.Series];

        // Exemplars first, so that every exemplar's add is in the value read after it. An
        // instrument's series all keep exemplars or none do: none, and nothing is allocated.
        Exemplar?[]? exemplars = null;
        for (int i = 0; i < all.Length; i++)
        {
            if (all[i].Exemplars is { } reservoir)
            {
                (exemplars ??= new Exemplar?[all.Length])[i] = reservoir.ReadNewest(0);
            }
        }

        var values = new TValue[all.Length];
        readAll(arena, all, values);
        var readings = new TReading[all.Length];
        for (int i = 0; i < all.Length; i++)
        {
            readings[i] = toReading(all[i].Tags, values[i], exemplars?[i]);
        }

        return readings;
    }
}
