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
    private readonly Func<IEnumerable<Measurement<TValue>>> _observe;
    private readonly Func<TValue, TValue, TValue> _saturatingAdd;
    private readonly SeriesTable<ObservedSeries<TValue>> _series;

    /// <summary>Creates the values of <paramref name="observe"/>, none reported yet.</summary>
    /// <param name="observe">The callback.</param>
    /// <param name="saturatingAdd">How two reports of one series in one collection add up.</param>
    /// <param name="maxSeries">The most series it creates before the overflow series.</param>
    /// <param name="tagLimits">What a reported tag set may hold.</param>
    public ObservedCallback(Func<IEnumerable<Measurement<TValue>>> observe, Func<TValue, TValue, TValue> saturatingAdd, int maxSeries, TagLimits tagLimits)
    {
        _observe = observe;
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
        foreach (Measurement<TValue> measurement in _observe() ?? [])
        {
            kind.CheckValue(double.CreateTruncating(measurement.Value));
            ObservedSeries<TValue> series = _series.GetOrAdd(measurement.Tags);
            if (series.Round != round)
            {
                snapshot.AddSeriesGrowing(series);
            }

            series.Value = series.Round == round && kind.SumsWithinCollection ? _saturatingAdd(series.Value, measurement.Value) : measurement.Value;
            series.Round = round;
        }

        // Long values are exported as Prometheus exports every value, as doubles.
        Span<double> values = snapshot.Doubles();
        for (int i = 0; i < values.Length; i++)
        {
            values[i] = double.CreateTruncating(((ObservedSeries<TValue>)snapshot.KeyAt(i)).Value);
        }
    }
}
