using ScalableMetrics.Cells;
using ScalableMetrics.SeriesTables;
using ScalableMetrics.Snapshots;

namespace ScalableMetrics.Instruments;

/// <summary>
/// The summed read of the counters and up-down counters, long and double: what they do with
/// their <see cref="SeriesTable{TSeries}"/> alike at a collection, beside what
/// <see cref="SeriesInstrument{TSeries}"/> does alike for every kind over a table.
/// </summary>
internal static class InstrumentSeries
{
    /// <summary>
    /// Reads every series of a counter or an up-down counter, one slot each, summed over its
    /// partitions (<see cref="PartitionedSeries.ReadTotalsInto"/>), into <paramref name="snapshot"/>,
    /// as one collection of <paramref name="table"/>.
    /// </summary>
    /// <typeparam name="TSeries">The instrument's bound series type.</typeparam>
    /// <param name="table">The instrument's series.</param>
    /// <param name="arena">The arena the series' slots are in.</param>
    /// <param name="snapshot">The reader's columns.</param>
    /// <param name="kind">How the slot is summed.</param>
    /// <param name="idleCollections">The instrument's idle expiry (<see cref="Instrument.IdleCollections"/>).</param>
    public static void ReadTotalsInto<TSeries>(this SeriesTable<TSeries> table, PartitionArena arena, InstrumentSnapshot snapshot, SlotSum kind, int idleCollections)
        where TSeries : PartitionedSeries
    {
        ArraySegment<TSeries> series = table.BeginRead(out long read);
        PartitionedSeries.ReadTotalsInto(arena, series, snapshot, kind);
        table.EndRead(read, snapshot, idleCollections);
    }
}
