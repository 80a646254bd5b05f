using ScalableMetrics.Exporter.Prometheus.Sources;

namespace ScalableMetrics.Exporter.Hosting;

/// <summary>
/// What one <see cref="IScalableMetricsFeature"/> built for a container: live once built (the
/// OpenTelemetry part's <c>MeterProvider</c> collects from then on), disposed with the container.
/// </summary>
internal interface IScalableMetricsPart : IDisposable
{
    /// <summary>What the part adds to every scrape, after the registry and the listened meters; null for nothing.</summary>
    IScrapeSource? ScrapeSource { get; }
}
