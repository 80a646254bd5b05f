using ScalableMetrics.Cells;
using ScalableMetrics.SeriesTables;
using ScalableMetrics.Snapshots;

namespace ScalableMetrics.Instruments;

/// <summary>
/// What every instrument that keeps its series in a <see cref="SeriesTable{TSeries}"/> does with
/// its table the same way, written once for the long and double twins and the kinds shaped like
/// them: each public instrument holds its table, and its public members forward to the table and
/// to these.
/// </summary>
internal static class InstrumentSeries
{
    /// <summary>Removes <paramref name="series"/>, a series the instrument's <c>Bind</c> returned: an instrument's public <c>Remove(series)</c>.</summary>
    /// <typeparam name="TSeries">The instrument's bound series type.</typeparam>
    /// <param name="table">The instrument's series.</param>
    /// <param name="series">The series to remove.</param>
    /// <returns><see langword="true"/> where it was removed; <see langword="false"/> where it is not the
    /// table's, is the overflow series, or was removed already.</returns>
    /// <exception cref="ArgumentNullException"><paramref name="series"/> is null.</exception>
    public static bool RemoveBound<TSeries>(this SeriesTable<TSeries> table, TSeries series)
        where TSeries : Series
    {
        ArgumentNullException.ThrowIfNull(series);
        return table.Remove(series);
    }

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
