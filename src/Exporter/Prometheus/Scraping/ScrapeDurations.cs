using ScalableMetrics.Exporter.Prometheus.Exposition;

namespace ScalableMetrics.Exporter.Prometheus.Scraping;

/// <summary>
/// How long the last collection of each exposition format took, from the writer's first byte to
/// its last: what <c>scalablemetrics_scrape_duration_seconds</c> reports. The time a scrape waited
/// for a collection to start is not in it; a collection that failed leaves the last one's.
/// </summary>
/// <remarks>Thread-safe: written by the scraper's collections, one at a time, and read by the
/// self-metrics' callback at any collection, a scrape's or an OTLP export's; each format's value
/// is one word, written and read whole.</remarks>
internal sealed class ScrapeDurations
{
    // By the format's id: one word each, so that a read and a write never tear.
    private readonly double[] _seconds = [double.NaN, double.NaN, double.NaN];

    /// <summary>The last collection of <paramref name="format"/>'s duration in seconds; NaN before the first one ended.</summary>
    public double LastSeconds(ExpositionFormat format) => Volatile.Read(ref _seconds[(int)format.Id]);

    /// <summary>Records a collection of <paramref name="format"/> that took <paramref name="elapsed"/>.</summary>
    public void Record(ExpositionFormat format, TimeSpan elapsed) => Volatile.Write(ref _seconds[(int)format.Id], elapsed.TotalSeconds);
}
