using ScalableMetrics.Cells;
using ScalableMetrics.Instruments;
using ScalableMetrics.Snapshots;
using ScalableMetrics.Tags;

namespace ScalableMetrics;

/// <summary>
/// A monotonic counter of <see cref="long"/> values: a <see cref="CounterInstrument{TValue, TSeries}"/>
/// whose series (<see cref="CounterSeries"/>) saturate at <see cref="long.MaxValue"/>.
/// </summary>
/// <remarks>Create one with <see cref="MetricRegistry.CreateCounter"/>. All members are thread-safe.</remarks>
public sealed class PartitionedCounter : CounterInstrument<long, CounterSeries>
{
    internal PartitionedCounter(string name, string? unit, string? description, PartitionArena arena, int maxSeries, TagLimits tagLimits, ExemplarFilter exemplarFilter = ExemplarFilter.None)
        : base(name, unit, description, arena, maxSeries, tagLimits, tags => new CounterSeries(tags, arena, exemplarFilter))
    {
    }

    /// <summary>Sums every series' partitions, and reads each series' newest exemplar (<see cref="CounterReading.Exemplar"/>).</summary>
    /// <returns>One reading per series, in no particular order; each value at most <see cref="long.MaxValue"/> and never lower than an earlier read of the series returned.</returns>
    /// <remarks>Region by region, vectorized, over the series' slots; serialized with every other read of the registry's series.</remarks>
    public IReadOnlyList<CounterReading> Collect() =>
        SnapshotReadings.Of(this, static (snapshot, i) => new CounterReading(snapshot.TagsAt(i), snapshot.LongValues[i]) { Exemplar = snapshot.ExemplarAt(i) });

    /// <inheritdoc/>
    internal override void ReadInto(InstrumentSnapshot snapshot, bool collection) => PartitionedSeries.ReadTotalsInto(Table, Arena, snapshot, SlotSum.Saturating, IdleCollections, collection);

    /// <inheritdoc/>
    internal override void Accept(IInstrumentSink sink) => sink.Counter(this);
}
