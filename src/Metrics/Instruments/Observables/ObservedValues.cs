using System.Diagnostics.Metrics;
using ScalableMetrics.Snapshots;
using ScalableMetrics.Tags;

namespace ScalableMetrics.Instruments.Observables;

/// <summary>
/// An observable instrument's callback and the series it reported in the latest collection, of <see cref="long"/> or
/// <see cref="double"/> values: what every kind of <see cref="ObservableInstrument"/> holds, the
/// collection written once for both value types (<see cref="ObservedCallback{TValue}"/>).
/// </summary>
internal abstract class ObservedValues
{
    /// <summary>Whether the callback reports <see cref="double"/> values (otherwise <see cref="long"/> ones).</summary>
    public abstract bool IsFloatingPoint { get; }

    /// <summary>The number of series the callback reported in the latest collection that succeeded, the overflow series included where it took a report; 0 before one.</summary>
    public abstract int SeriesCount { get; }

    /// <summary>A callback of <see cref="long"/> values.</summary>
    /// <param name="observe">The callback.</param>
    /// <param name="maxSeries">The most series it creates before the overflow series.</param>
    /// <param name="tagLimits">What a reported tag set may hold.</param>
    /// <returns>Its values, none reported yet.</returns>
    public static ObservedValues Of(Func<IEnumerable<Measurement<long>>> observe, int maxSeries, TagLimits tagLimits) =>
        new ObservedCallback<long>(observe, SaturatingAdd, maxSeries, tagLimits);

    /// <summary>A callback of <see cref="double"/> values.</summary>
    /// <inheritdoc cref="Of(Func{IEnumerable{Measurement{long}}}, int, TagLimits)"/>
    public static ObservedValues Of(Func<IEnumerable<Measurement<double>>> observe, int maxSeries, TagLimits tagLimits) =>
        new ObservedCallback<double>(observe, SaturatingAdd, maxSeries, tagLimits);

    /// <summary>The values of a callback that reports <see cref="long"/>s into the <see cref="Observations{TValue}"/> it is handed.</summary>
    public static ObservedValues Of(Action<Observations<long>> report, int maxSeries, TagLimits tagLimits) =>
        new ObservedCallback<long>(report, SaturatingAdd, maxSeries, tagLimits);

    /// <summary>The values of a callback that reports <see cref="double"/>s into the <see cref="Observations{TValue}"/> it is handed.</summary>
    public static ObservedValues Of(Action<Observations<double>> report, int maxSeries, TagLimits tagLimits) =>
        new ObservedCallback<double>(report, SaturatingAdd, maxSeries, tagLimits);

    /// <summary>Checks <paramref name="tags"/> as a report of them is checked in a collection, creating no series.</summary>
    /// <param name="tags">The tags of a report.</param>
    /// <exception cref="ArgumentException">The tags break the rules of <see cref="TagSet.Create"/> or the registry's tag limits.</exception>
    public abstract void CheckTags(ReadOnlySpan<KeyValuePair<string, object?>> tags);

    /// <summary>
    /// Calls the callback and reads what it reported into <paramref name="snapshot"/>: each series
    /// reported in this call once (reports of one tag set in one call added up where
    /// <paramref name="kind"/> sums them, the last one kept where not), its value as a <see cref="double"/>.
    /// </summary>
    /// <param name="kind">The instrument: which values it takes, and whether reports add up.</param>
    /// <param name="round">This collection's number, above every earlier one's.</param>
    /// <param name="snapshot">Where the series and values go.</param>
    /// <exception cref="Exception">Whatever the callback throws, or the checks of its tags and values; the snapshot then holds part of the call, and the series the call created are removed (those of the latest successful collection are kept).</exception>
    public abstract void ObserveInto(ObservableInstrument kind, long round, InstrumentSnapshot snapshot);

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
}
