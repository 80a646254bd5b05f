using ScalableMetrics.Instruments;
using ScalableMetrics.Snapshots;
using ScalableMetrics.Tags;

namespace ScalableMetrics;

/// <summary>
/// A gauge of <see cref="double"/> values: each series holds the last value set (a queue length, a
/// pool size), read at collection. Not partitioned: a gauge is not a contention point, since a
/// set replaces rather than adds, and one cell per series is enough (<see cref="DoubleGaugeSeries"/>).
/// </summary>
/// <remarks>
/// <para>Create one with <see cref="MetricRegistry.CreateDoubleGauge"/>. All members are thread-safe.</para>
/// <para>Exported as a Prometheus gauge. A series is exported from its first set on; a series
/// bound but never set is not. Past <see cref="MetricRegistry.MaxSeriesPerInstrument"/>, new tag
/// sets share the overflow series (<c>otel.metric.overflow=true</c>), which holds the last value
/// any of them set.</para>
/// <para>For a value the service already keeps, an observable gauge
/// (<see cref="MetricRegistry.CreateObservableGauge(string, Func{IEnumerable{System.Diagnostics.Metrics.Measurement{double}}}, string?, string?)"/>)
/// reads it at collection instead.</para>
/// </remarks>
public sealed class DoubleGauge : SeriesInstrument<DoubleGaugeSeries>
{
    internal DoubleGauge(string name, string? unit, string? description, int maxSeries, TagLimits tagLimits)
        : base(name, unit, description, maxSeries, tagLimits, static tags => new DoubleGaugeSeries(tags))
    {
    }

    /// <summary>Sets the value of the series without tags.</summary>
    /// <param name="value">The value, any <see cref="double"/> (see <see cref="DoubleGaugeSeries"/>).</param>
    public void Set(double value) => Table.GetOrAdd([]).Set(value);

    /// <summary>Sets the value of the series named by <paramref name="tags"/>, creating it on first use.</summary>
    /// <param name="value">The value, any <see cref="double"/> (see <see cref="DoubleGaugeSeries"/>).</param>
    /// <param name="tags">The series' tags, in any order; see <see cref="TagSet.Create"/> for the rules.</param>
    /// <exception cref="ArgumentException">A tag key is null, empty, repeated, reserved or too long, two keys export as one label name, a tag value is null, of an unsupported type or too long, or there are too many tags (see <see cref="MetricRegistryOptions"/>); nothing is recorded.</exception>
    public void Set(double value, params ReadOnlySpan<KeyValuePair<string, object?>> tags) => Table.GetOrAdd(tags).Set(value);

    /// <summary>Reads every series set at least once.</summary>
    /// <returns>One reading per series that has a value, in no particular order.</returns>
    public IReadOnlyList<DoubleReading> Collect() => SnapshotReadings.Doubles(this);

    /// <inheritdoc/>
    /// <remarks>Series by series, those set at least once (each its last value), in creation order.</remarks>
    internal override void ReadInto(InstrumentSnapshot snapshot) => LastValueSeries<double>.ReadInto(Table, snapshot, IdleCollections);

    /// <inheritdoc/>
    internal override void Accept(IInstrumentSink sink) => sink.DoubleGauge(this);
}
