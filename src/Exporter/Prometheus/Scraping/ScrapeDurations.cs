using ScalableMetrics.Exporter.Prometheus.Exposition;

namespace ScalableMetrics.Exporter.Prometheus.Scraping;

/// <summary>
/// How long the last collection of each exposition format took, from the writer's first byte to
/// its last: what <c>scalablemetrics_scrape_duration_seconds</c> reports. The time a scrape waited
/// for a collection to start is not in it; a collection that failed leaves the last one's.
/// </summary>
/// <remarks>Written and read by collections only, which run one at a time (the scraper's lock):
/// no other synchronization.</remarks>
internal sealed class ScrapeDurations
{
    private readonly Dictionary<ExpositionFormat, double> _seconds = [];

    /// <summary>The last collection of <paramref name="format"/>'s duration in seconds; NaN before the first one ended.</summary>
    public double LastSeconds(ExpositionFormat format) => _seconds.TryGetValue(format, out double seconds) ? seconds : double.NaN;

    /// <summary>Records a collection of <paramref name="format"/> that took <paramref name="elapsed"/>.</summary>
    public void Record(ExpositionFormat format, TimeSpan elapsed) => _seconds[format] = elapsed.TotalSeconds;
}
