using ScalableMetrics.Cells;
using ScalableMetrics.Instruments;
using ScalableMetrics.Snapshots;
using ScalableMetrics.Tags;

namespace ScalableMetrics;

/// <summary>
/// A counter of <see cref="double"/> values that goes up and down: an
/// <see cref="UpDownCounterInstrument{TValue, TSeries}"/> whose series
/// (<see cref="DoubleUpDownCounterSeries"/>) are summed as doubles only when collected.
/// </summary>
/// <remarks>Create one with <see cref="MetricRegistry.CreateDoubleUpDownCounter"/>. All members are thread-safe.
/// NaN and infinities are refused: one would make the total NaN or infinite for good.</remarks>
public sealed class PartitionedDoubleUpDownCounter : UpDownCounterInstrument<double, DoubleUpDownCounterSeries>
{
    internal PartitionedDoubleUpDownCounter(string name, string? unit, string? description, PartitionArena arena, int maxSeries, TagLimits tagLimits)
        : base(name, unit, description, arena, maxSeries, tagLimits, tags => new DoubleUpDownCounterSeries(tags, arena))
    {
    }

    /// <summary>Sums every series' partitions.</summary>
    /// <returns>One reading per series, in no particular order: the series' total since it was created.</returns>
    /// <remarks>Region by region, vectorized, over the series' slots; serialized with every other read of the registry's series.</remarks>
    public IReadOnlyList<DoubleReading> Collect() => SnapshotReadings.Doubles(this);

    /// <inheritdoc/>
    internal override void ReadInto(InstrumentSnapshot snapshot, bool collection) => PartitionedSeries.ReadTotalsInto(Table, Arena, snapshot, SlotSum.Double, IdleCollections, collection);

    /// <inheritdoc/>
    internal override void Accept(IInstrumentSink sink) => sink.DoubleUpDownCounter(this);
}
