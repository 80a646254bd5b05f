using ScalableMetrics.Instruments;
using ScalableMetrics.Instruments.Gauges;
using ScalableMetrics.Recording;
using ScalableMetrics.SeriesTables;
using ScalableMetrics.Snapshots;
using ScalableMetrics.Tags;

namespace ScalableMetrics;

/// <summary>
/// A gauge of <see cref="long"/> values: each series holds the last value set (a queue length, a
/// pool size), read at collection. Not partitioned: a gauge is not a contention point, since a
/// set replaces rather than adds, and one cell per series is enough (<see cref="GaugeSeries"/>).
/// </summary>
/// <remarks>
/// <para>Create one with <see cref="MetricRegistry.CreateGauge"/>. All members are thread-safe.</para>
/// <para>Exported as a Prometheus gauge. A series is exported from its first set on; a series
/// bound but never set is not. Past <see cref="MetricRegistry.MaxSeriesPerInstrument"/>, new tag
/// sets share the overflow series (<c>otel.metric.overflow=true</c>), which holds the last value
/// any of them set.</para>
/// <para>For a value the service already keeps, an observable gauge
/// (<see cref="MetricRegistry.CreateObservableGauge(string, Func{IEnumerable{System.Diagnostics.Metrics.Measurement{long}}}, string?, string?)"/>)
/// reads it at collection instead.</para>
/// </remarks>
public sealed class Gauge : Instrument
{
    private readonly SeriesTable<GaugeSeries> _series;

    internal Gauge(string name, string? unit, string? description, int maxSeries, TagLimits tagLimits)
        : base(name, unit, description)
    {
        _series = new SeriesTable<GaugeSeries>(maxSeries, tagLimits, static tags => new GaugeSeries(tags));
    }

    /// <inheritdoc/>
    public override int SeriesCount => _series.Count;

    /// <summary>A recorder into this instrument's series for a source that adds <paramref name="sourceTags"/> to every measurement's tags: the listener's way in.</summary>
    /// <param name="sourceTags">The source's tags (a listened instrument's and its meter's), with distinct keys.</param>
    internal SeriesRecorder<GaugeSeries> CreateRecorder(KeyValuePair<string, object?>[] sourceTags) => new(_series, sourceTags);

    /// <summary>Sets the value of the series without tags.</summary>
    /// <param name="value">The value.</param>
    public void Set(long value) => _series.GetOrAdd([]).Set(value);

    /// <summary>Sets the value of the series named by <paramref name="tags"/>, creating it on first use.</summary>
    /// <param name="value">The value.</param>
    /// <param name="tags">The series' tags, in any order; see <see cref="TagSet.Create"/> for the rules.</param>
    /// <exception cref="ArgumentException">A tag key is null, empty, repeated, reserved or too long, two keys export as one label name, a tag value is null, of an unsupported type or too long, or there are too many tags (see <see cref="MetricRegistryOptions"/>); nothing is recorded.</exception>
    public void Set(long value, params ReadOnlySpan<KeyValuePair<string, object?>> tags) => _series.GetOrAdd(tags).Set(value);

    /// <summary>Returns the series named by <paramref name="tags"/>, created on first use, to set without a lookup.</summary>
    /// <param name="tags">The series' tags, in any order; none binds the series without tags.</param>
    /// <returns>The bound series; binding the same tags again returns the same object.</returns>
    /// <exception cref="ArgumentException">A tag key is null, empty, repeated, reserved or too long, two keys export as one label name, a tag value is null, of an unsupported type or too long, or there are too many tags (see <see cref="MetricRegistryOptions"/>).</exception>
    public GaugeSeries Bind(params ReadOnlySpan<KeyValuePair<string, object?>> tags) => _series.Bind(tags);

    /// <summary>
    /// Removes the series named by <paramref name="tags"/> (as <see cref="Bind"/> names it: these
    /// tags, in any order, or tags that export alike): the instrument's next collection exports it
    /// a last time, then it is gone, its place under the series limit free and its memory returned
    /// for reuse once nothing holds it. A later record with these tags starts a new series, from
    /// zero, with a start time of its own. See docs/series-lifecycle.md.
    /// </summary>
    /// <param name="tags">The series' tags, in any order; none names the series without tags.</param>
    /// <returns><see langword="true"/> where a series was removed; <see langword="false"/> where none
    /// has these tags, for the overflow series, and for a series removed already.</returns>
    /// <remarks>Thread-safe. A record racing the removal is in the series' last export, or in the new
    /// series; an add through a bound handle of the removed series after its last export is counted,
    /// not exported (<c>scalablemetrics_removed_series_late_adds_total</c>).</remarks>
    /// <exception cref="ArgumentException">The tags break the rules of <see cref="TagSet.Create"/> (see <see cref="MetricRegistryOptions"/>); nothing is removed.</exception>
    public bool Remove(params ReadOnlySpan<KeyValuePair<string, object?>> tags) => _series.Remove(tags);

    /// <summary>Removes <paramref name="series"/>, a series of this instrument, as <see cref="Remove(ReadOnlySpan{KeyValuePair{string, object}})"/> does.</summary>
    /// <param name="series">A series <see cref="Bind"/> returned.</param>
    /// <returns><see langword="true"/> where it was removed; <see langword="false"/> where it is not this
    /// instrument's, is the overflow series, or was removed already.</returns>
    /// <remarks>Thread-safe. The handle stays usable: its adds after the series' last export are counted, not exported.</remarks>
    /// <exception cref="ArgumentNullException"><paramref name="series"/> is null.</exception>
    public bool Remove(GaugeSeries series) => _series.RemoveBound(series);

    /// <summary>Reads every series set at least once.</summary>
    /// <returns>One reading per series that has a value, in no particular order.</returns>
    public IReadOnlyList<LongReading> Collect() => SnapshotReadings.Longs(this);

    /// <inheritdoc/>
    /// <remarks>Series by series, those set at least once (each its last value), in creation order.</remarks>
    internal override void ReadInto(InstrumentSnapshot snapshot) => ILastValueSeries<long>.ReadInto(_series, snapshot, IdleCollections);

    /// <inheritdoc/>
    internal override void Accept(IInstrumentSink sink) => sink.Gauge(this);
}
