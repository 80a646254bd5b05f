using ScalableMetrics.SeriesTables;

namespace ScalableMetrics.Instruments.Gauges;

/// <summary>The collection of a <see cref="Gauge"/> or a <see cref="DoubleGauge"/>, written once for both value types.</summary>
internal static class GaugeReadings
{
    /// <summary>Reads every series of <paramref name="series"/> set at least once.</summary>
    /// <param name="series">The gauge's series.</param>
    /// <param name="read">A series' last value, or <see langword="null"/> before its first set.</param>
    /// <param name="toReading">The reading of a series' tags and value.</param>
    /// <returns>One reading per series that has a value, in no particular order.</returns>
    public static List<TReading> Collect<TSeries, TValue, TReading>(SeriesTable<TSeries> series, Func<TSeries, TValue?> read, Func<TagSet, TValue, TReading> toReading)
        where TSeries : Series
        where TValue : struct
    {
        var readings = new List<TReading>(series.Count);
        foreach (TSeries one in series.Series)
        {
            if (read(one) is { } value)
            {
                readings.Add(toReading(one.Tags, value));
            }
        }

        return readings;
    }
}
