using ScalableMetrics.Instruments;
using ScalableMetrics.Snapshots;
using ScalableMetrics.Tags;

namespace ScalableMetrics;

/// <summary>A gauge of <see cref="double"/> values: a <see cref="GaugeInstrument{TValue, TSeries}"/> whose series are <see cref="DoubleGaugeSeries"/>s.</summary>
/// <remarks>Create one with <see cref="MetricRegistry.CreateDoubleGauge"/>. All members are thread-safe.</remarks>
public sealed class DoubleGauge : GaugeInstrument<double, DoubleGaugeSeries>
{
    internal DoubleGauge(string name, string? unit, string? description, int maxSeries, TagLimits tagLimits)
        : base(name, unit, description, maxSeries, tagLimits, static tags => new DoubleGaugeSeries(tags))
    {
    }

    /// <summary>Reads every series set at least once.</summary>
    /// <returns>One reading per series that has a value, in no particular order.</returns>
    public IReadOnlyList<DoubleReading> Collect() => SnapshotReadings.Doubles(this);

    /// <inheritdoc/>
    /// <remarks>Series by series, those set at least once (each its last value), in creation order.</remarks>
    internal override void ReadInto(InstrumentSnapshot snapshot, bool collection) => LastValueSeries<double>.ReadInto(Table, snapshot, IdleCollections, collection);

    /// <inheritdoc/>
    internal override void Accept(IInstrumentSink sink) => sink.DoubleGauge(this);
}
