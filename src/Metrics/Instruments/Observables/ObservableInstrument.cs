using System.Diagnostics.Metrics;
using ScalableMetrics.Instruments.Observables;
using ScalableMetrics.SeriesTables;
using ScalableMetrics.Tags;

namespace ScalableMetrics;

/// <summary>
/// An instrument whose values the service already keeps: the registry calls its callback at every
/// collection (a scrape) and exports what it reports, rather than being told of each change.
/// The base of <see cref="ObservableCounter"/>, <see cref="ObservableUpDownCounter"/> and
/// <see cref="ObservableGauge"/>, after OpenTelemetry's asynchronous instruments.
/// </summary>
/// <remarks>
/// <para>Thread-safe: collections of one instrument are serialized, so its callback is never
/// called twice at once by the registry.</para>
/// <para>A collection exports the series the callback reported in that call, each once: where the
/// callback reports one tag set more than once, or several tag sets fold into the overflow series
/// (past <see cref="MetricRegistry.MaxSeriesPerInstrument"/>, the one cardinality limit), a counter
/// or up-down counter exports their sum and a gauge the last one reported. A series the callback
/// stops reporting is no longer exported.</para>
/// <para><see cref="long"/> values are exported as Prometheus does every value, as a
/// <see cref="double"/>: exactly up to 2^53.</para>
/// </remarks>
public abstract class ObservableInstrument : Instrument
{
    private readonly Func<IEnumerable<Measurement<long>>>? _observeLongs;
    private readonly Func<IEnumerable<Measurement<double>>>? _observeDoubles;
    private readonly SeriesTable<ObservedSeries> _series;
    private readonly Lock _collectLock = new();
    private long _round;

    private protected ObservableInstrument(
        string name,
        string? unit,
        string? description,
        Func<IEnumerable<Measurement<long>>>? observeLongs,
        Func<IEnumerable<Measurement<double>>>? observeDoubles,
        int maxSeries,
        TagLimits tagLimits)
        : base(name, unit, description)
    {
        _observeLongs = observeLongs;
        _observeDoubles = observeDoubles;
        _series = new SeriesTable<ObservedSeries>(maxSeries, tagLimits, static tags => new ObservedSeries(tags));
    }

    /// <summary>Whether the callback reports <see cref="double"/> values (otherwise <see cref="long"/> ones).</summary>
    public bool IsFloatingPoint => _observeDoubles is not null;

    /// <summary>The number of series the callback has ever reported, the overflow series included.</summary>
    public override int SeriesCount => _series.Count;

    // Whether values reported for one series in one collection add up (counters) or replace each other (gauges).
    private protected abstract bool SumsWithinCollection { get; }

    /// <summary>Calls the callback and returns what it reported.</summary>
    /// <returns>One reading per series the callback reported in this call, in no particular order.</returns>
    /// <exception cref="InvalidOperationException">The callback threw, reported a tag set that breaks the rules of
    /// <see cref="TagSet.Create"/>, or a value the instrument's kind does not take (a negative or NaN counter value;
    /// a NaN up-down counter value); the inner exception says which. Nothing of this call is exported.</exception>
    public IReadOnlyList<DoubleReading> Collect()
    {
        lock (_collectLock)
        {
            long round = ++_round;
            var reported = new List<ObservedSeries>();
            try
            {
                if (_observeLongs is not null)
                {
                    foreach (Measurement<long> measurement in _observeLongs() ?? [])
                    {
                        CheckValue(measurement.Value);
                        ObservedSeries series = Observe(measurement.Tags, round, reported);
                        series.LongValue = series.Round == round && SumsWithinCollection ? SaturatingAdd(series.LongValue, measurement.Value) : measurement.Value;
                        series.Round = round;
                    }
                }
                else
                {
                    foreach (Measurement<double> measurement in _observeDoubles!() ?? [])
                    {
                        CheckValue(measurement.Value);
                        ObservedSeries series = Observe(measurement.Tags, round, reported);
                        series.DoubleValue = series.Round == round && SumsWithinCollection ? SaturatingAdd(series.DoubleValue, measurement.Value) : measurement.Value;
                        series.Round = round;
                    }
                }
            }
            catch (Exception e) when (e is not OutOfMemoryException)
            {
                throw new InvalidOperationException($"The callback of the {GetType().Name} {ExceptionText.Quote(Name)} failed at collection; nothing it reported in this call is exported: {e.Message}", e);
            }

            var readings = new DoubleReading[reported.Count];
            for (int i = 0; i < readings.Length; i++)
            {
                ObservedSeries series = reported[i];
                readings[i] = new DoubleReading(series.Tags, IsFloatingPoint ? series.DoubleValue : series.LongValue);
            }

            return readings;
        }
    }

    /// <summary>Throws <see cref="ArgumentOutOfRangeException"/> for a value this kind does not take.</summary>
    private protected abstract void CheckValue(double value);

    // A callback may report one tag set more than once in a call (a counter per worker, say), and
    // the reports add up: their sum saturates at long's range, as every write path's sum does,
    // rather than wrapping to a value of the other sign (which a scraper reads as a reset).
    private static long SaturatingAdd(long sum, long value)
    {
        long result = unchecked(sum + value);
        return ((sum ^ result) & (value ^ result)) < 0 ? (value < 0 ? long.MinValue : long.MaxValue) : result;
    }

    // The same for doubles: finite reports that add up past double's range saturate at its largest
    // finite value of that sign, rather than +∞ or -∞, which only an infinite report produces.
    private static double SaturatingAdd(double sum, double value)
    {
        double result = sum + value;
        return double.IsInfinity(result) && double.IsFinite(sum) && double.IsFinite(value) ? Math.CopySign(double.MaxValue, result) : result;
    }

    private ObservedSeries Observe(ReadOnlySpan<KeyValuePair<string, object?>> tags, long round, List<ObservedSeries> reported)
    {
        ObservedSeries series = _series.GetOrAdd(tags);
        if (series.Round != round)
        {
            reported.Add(series);
        }

        return series;
    }
}
