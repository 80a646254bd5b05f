using ScalableMetrics.Cells;
using ScalableMetrics.Instruments;
using ScalableMetrics.Snapshots;
using ScalableMetrics.Tags;

namespace ScalableMetrics;

/// <summary>
/// A monotonic counter of <see cref="double"/> values (bytes, seconds): a
/// <see cref="CounterInstrument{TValue, TSeries}"/> whose series (<see cref="DoubleCounterSeries"/>)
/// are summed as doubles only when collected.
/// </summary>
/// <remarks>Create one with <see cref="MetricRegistry.CreateDoubleCounter"/>. All members are thread-safe.
/// Negative increments, NaN and infinities are refused.</remarks>
public sealed class PartitionedDoubleCounter : CounterInstrument<double, DoubleCounterSeries>
{
    internal PartitionedDoubleCounter(string name, string? unit, string? description, PartitionArena arena, int maxSeries, TagLimits tagLimits, ExemplarFilter exemplarFilter = ExemplarFilter.None)
        : base(name, unit, description, arena, maxSeries, tagLimits, tags => new DoubleCounterSeries(tags, arena, exemplarFilter))
    {
    }

    /// <summary>Sums every series' partitions, and reads each series' newest exemplar (<see cref="DoubleReading.Exemplar"/>).</summary>
    /// <returns>One reading per series, in no particular order: the series' total since it was created.</returns>
    /// <remarks>Region by region, vectorized, over the series' slots; serialized with every other read of the registry's series.</remarks>
    public IReadOnlyList<DoubleReading> Collect() =>
        SnapshotReadings.Of(this, static (snapshot, i) => new DoubleReading(snapshot.TagsAt(i), snapshot.DoubleValues[i]) { Exemplar = snapshot.ExemplarAt(i) });

    /// <inheritdoc/>
    internal override void ReadInto(InstrumentSnapshot snapshot, bool collection) => PartitionedSeries.ReadTotalsInto(Table, Arena, snapshot, SlotSum.Double, IdleCollections, collection);

    /// <inheritdoc/>
    internal override void Accept(IInstrumentSink sink) => sink.DoubleCounter(this);
}
