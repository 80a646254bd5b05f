using System.Diagnostics.Metrics;
using System.Numerics;
using ScalableMetrics.SeriesTables;
using ScalableMetrics.Snapshots;
using ScalableMetrics.Tags;

namespace ScalableMetrics.Instruments.Observables;

/// <summary>
/// A callback of <typeparamref name="TValue"/> values and the series it has reported: the
/// collection of every observable instrument, of either value type.
/// </summary>
/// <typeparam name="TValue"><see cref="long"/> or <see cref="double"/>.</typeparam>
internal sealed class ObservedCallback<TValue> : ObservedValues
    where TValue : struct, INumberBase<TValue>
{
    // The callback, reporting into the kept Observations: the library's own report directly
    // (nothing allocated per measurement); a public callback's measurements are reported one by one.
    private readonly Action<Observations<TValue>> _report;
    private readonly Observations<TValue> _observations;
    private readonly Func<TValue, TValue, TValue> _saturatingAdd;
    private readonly SeriesTable<ObservedSeries<TValue>> _series;

    /// <summary>Creates the values of <paramref name="observe"/>, none reported yet.</summary>
    /// <param name="observe">The callback.</param>
    /// <param name="saturatingAdd">How two reports of one series in one collection add up.</param>
    /// <param name="maxSeries">The most series it creates before the overflow series.</param>
    /// <param name="tagLimits">What a reported tag set may hold.</param>
    public ObservedCallback(Func<IEnumerable<Measurement<TValue>>> observe, Func<TValue, TValue, TValue> saturatingAdd, int maxSeries, TagLimits tagLimits)
        : this(observations => ReportAll(observe, observations), saturatingAdd, maxSeries, tagLimits)
    {
    }

    /// <summary>Creates the values of <paramref name="report"/>, a callback that reports each measurement into the <see cref="Observations{TValue}"/> it is handed.</summary>
    /// <param name="report">The callback.</param>
    /// <param name="saturatingAdd">How two reports of one series in one collection add up.</param>
    /// <param name="maxSeries">The most series it creates before the overflow series.</param>
    /// <param name="tagLimits">What a reported tag set may hold.</param>
    public ObservedCallback(Action<Observations<TValue>> report, Func<TValue, TValue, TValue> saturatingAdd, int maxSeries, TagLimits tagLimits)
    {
        _report = report;
        _observations = new Observations<TValue>(this);
        _saturatingAdd = saturatingAdd;
        _series = new SeriesTable<ObservedSeries<TValue>>(maxSeries, tagLimits, static tags => new ObservedSeries<TValue>(tags));
    }

    /// <inheritdoc/>
    public override bool IsFloatingPoint => typeof(TValue) == typeof(double);

    /// <inheritdoc/>
    public override int SeriesCount => _series.Count;

    /// <inheritdoc/>
    public override void ObserveInto(ObservableInstrument kind, long round, InstrumentSnapshot snapshot)
    {
        snapshot.BeginOwnSeries(_series.Count, longStride: 0, doubles: true);
        _observations.Begin(kind, round, snapshot);
        try
        {
            _report(_observations);
        }
        finally
        {
            _observations.End();
        }

        // Long values are exported as Prometheus exports every value, as doubles.
        Span<double> values = snapshot.Doubles();
        for (int i = 0; i < values.Length; i++)
        {
            values[i] = double.CreateTruncating(((ObservedSeries<TValue>)snapshot.KeyAt(i)).Value);
        }
    }

    /// <summary>Takes one report of the call under way: its series added to the snapshot the first time in the call, its value kept or added.</summary>
    internal void Report(ObservableInstrument kind, long round, InstrumentSnapshot snapshot, TValue value, ReadOnlySpan<KeyValuePair<string, object?>> tags)
    {
        kind.CheckValue(double.CreateTruncating(value));
        ObservedSeries<TValue> series = _series.GetOrAdd(tags);
        if (series.Round != round)
        {
            snapshot.AddSeriesGrowing(series);
        }

        series.Value = series.Round == round && kind.SumsWithinCollection ? _saturatingAdd(series.Value, value) : value;
        series.Round = round;
    }

    // A public callback's measurements, reported one by one.
    private static void ReportAll(Func<IEnumerable<Measurement<TValue>>> observe, Observations<TValue> observations)
    {
        foreach (Measurement<TValue> measurement in observe() ?? [])
        {
            observations.Add(measurement.Value, measurement.Tags);
        }
    }
}
