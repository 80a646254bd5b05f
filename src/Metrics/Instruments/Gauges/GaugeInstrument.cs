using ScalableMetrics.Instruments;
using ScalableMetrics.Tags;

namespace ScalableMetrics;

/// <summary>
/// A gauge: each series holds the last value set (a queue length, a pool size), read at
/// collection. Not partitioned: a gauge is not a contention point, since a set replaces rather
/// than adds, and one cell per series is enough (<see cref="LastValueSeries{TValue}"/>). Written
/// once for <see cref="Gauge"/> (<see cref="long"/>) and <see cref="DoubleGauge"/> (<see cref="double"/>).
/// </summary>
/// <remarks>
/// <para>All members are thread-safe. Only this library derives from it.</para>
/// <para>Exported as a Prometheus gauge. A series is exported from its first set on; a series
/// bound but never set is not. Past <see cref="MetricRegistry.MaxSeriesPerInstrument"/>, new tag
/// sets share the overflow series (<c>otel.metric.overflow=true</c>), which holds the last value
/// any of them set.</para>
/// <para>For a value the service already keeps, an observable gauge
/// (<see cref="MetricRegistry.CreateObservableGauge(string, Func{IEnumerable{System.Diagnostics.Metrics.Measurement{long}}}, string?, string?)"/>)
/// reads it at collection instead.</para>
/// </remarks>
/// <typeparam name="TValue"><see cref="long"/> or <see cref="double"/>.</typeparam>
/// <typeparam name="TSeries">The gauge's bound series: <see cref="GaugeSeries"/> or <see cref="DoubleGaugeSeries"/>.</typeparam>
public abstract class GaugeInstrument<TValue, TSeries> : SeriesInstrument<TSeries>
    where TValue : unmanaged
    where TSeries : LastValueSeries<TValue>
{
    private protected GaugeInstrument(string name, string? unit, string? description, int maxSeries, TagLimits tagLimits, Func<TagSet, TSeries> createSeries)
        : base(name, unit, description, maxSeries, tagLimits, createSeries)
    {
    }

    /// <summary>Sets the value of the series without tags.</summary>
    /// <param name="value">The value (see <see cref="LastValueSeries{TValue}.Set"/>).</param>
    public void Set(TValue value) => Table.GetOrAdd([]).Set(value);

    /// <summary>Sets the value of the series named by <paramref name="tags"/>, creating it on first use.</summary>
    /// <param name="value">The value (see <see cref="LastValueSeries{TValue}.Set"/>).</param>
    /// <param name="tags">The series' tags, in any order; see <see cref="TagSet.Create"/> for the rules.</param>
    /// <exception cref="ArgumentException">A tag key is null, empty, repeated, reserved or too long, two keys export as one label name, a tag value is null, of an unsupported type or too long, or there are too many tags (see <see cref="MetricRegistryOptions"/>); nothing is recorded.</exception>
    public void Set(TValue value, params ReadOnlySpan<KeyValuePair<string, object?>> tags) => Table.GetOrAdd(tags).Set(value);
}
