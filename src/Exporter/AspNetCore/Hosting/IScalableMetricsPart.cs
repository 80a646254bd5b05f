using ScalableMetrics.Exporter.Prometheus.Sources;

namespace ScalableMetrics.Exporter.Hosting;

/// <summary>
/// What one <see cref="IScalableMetricsFeature"/> built for a container: live once built (the
/// OpenTelemetry part's <c>MeterProvider</c> collects from then on), started and stopped with the
/// host, disposed with the container.
/// </summary>
internal interface IScalableMetricsPart : IDisposable
{
    /// <summary>What the part adds to every scrape, after the registry and the listened meters; null for nothing.</summary>
    IScrapeSource? ScrapeSource { get; }

    /// <summary>Starts what the part runs on its own (a push exporter's timer), when the host starts,
    /// after the listeners; by default nothing.</summary>
    Task StartAsync(CancellationToken cancellationToken) => Task.CompletedTask;

    /// <summary>Stops it (a push exporter's last export) when the host stops, before the listeners,
    /// while every registry is still live; by default nothing.</summary>
    Task StopAsync(CancellationToken cancellationToken) => Task.CompletedTask;
}
