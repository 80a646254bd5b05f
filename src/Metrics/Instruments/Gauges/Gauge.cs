using ScalableMetrics.Instruments;
using ScalableMetrics.Snapshots;
using ScalableMetrics.Tags;

namespace ScalableMetrics;

/// <summary>A gauge of <see cref="long"/> values: a <see cref="GaugeInstrument{TValue, TSeries}"/> whose series are <see cref="GaugeSeries"/>s.</summary>
/// <remarks>Create one with <see cref="MetricRegistry.CreateGauge"/>. All members are thread-safe.</remarks>
public sealed class Gauge : GaugeInstrument<long, GaugeSeries>
{
    internal Gauge(string name, string? unit, string? description, int maxSeries, TagLimits tagLimits)
        : base(name, unit, description, maxSeries, tagLimits, static tags => new GaugeSeries(tags))
    {
    }

    /// <summary>Reads every series set at least once.</summary>
    /// <returns>One reading per series that has a value, in no particular order.</returns>
    public IReadOnlyList<LongReading> Collect() => SnapshotReadings.Longs(this);

    /// <inheritdoc/>
    /// <remarks>Series by series, those set at least once (each its last value), in creation order.</remarks>
    internal override void ReadInto(InstrumentSnapshot snapshot, bool collection) => LastValueSeries<long>.ReadInto(Table, snapshot, IdleCollections, collection);

    /// <inheritdoc/>
    internal override void Accept(IInstrumentSink sink) => sink.Gauge(this);
}
