using ScalableMetrics.Cells;
using ScalableMetrics.Instruments;
using ScalableMetrics.Snapshots;
using ScalableMetrics.Tags;

namespace ScalableMetrics;

/// <summary>
/// A counter of <see cref="long"/> values that goes up and down (in-flight requests, queue
/// length): an <see cref="UpDownCounterInstrument{TValue, TSeries}"/> whose series
/// (<see cref="UpDownCounterSeries"/>) wrap, so that a total is exact whenever it fits a <see cref="long"/>.
/// </summary>
/// <remarks>Create one with <see cref="MetricRegistry.CreateUpDownCounter"/>. All members are thread-safe.</remarks>
public sealed class PartitionedUpDownCounter : UpDownCounterInstrument<long, UpDownCounterSeries>
{
    internal PartitionedUpDownCounter(string name, string? unit, string? description, PartitionArena arena, int maxSeries, TagLimits tagLimits)
        : base(name, unit, description, arena, maxSeries, tagLimits, tags => new UpDownCounterSeries(tags, arena))
    {
    }

    /// <summary>Sums every series' partitions.</summary>
    /// <returns>One reading per series, in no particular order: the series' total since it was created.</returns>
    /// <remarks>Region by region, vectorized, over the series' slots; serialized with every other read of the registry's series.</remarks>
    public IReadOnlyList<LongReading> Collect() => SnapshotReadings.Longs(this);

    /// <inheritdoc/>
    internal override void ReadInto(InstrumentSnapshot snapshot, bool collection) => PartitionedSeries.ReadTotalsInto(Table, Arena, snapshot, SlotSum.Wrapping, IdleCollections, collection);

    /// <inheritdoc/>
    internal override void Accept(IInstrumentSink sink) => sink.UpDownCounter(this);
}
