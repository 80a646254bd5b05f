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

    /// <summary>Configures the primary handler of the exporter's named <see cref="System.Net.Http.IHttpClientFactory"/>
    /// client (<see cref="ExporterHttpClient.Name"/>) each time the factory builds one: a push exporter's
    /// certificates; by default nothing.</summary>
    /// <param name="handler">The handler the factory built (a <see cref="System.Net.Http.SocketsHttpHandler"/> unless the application chose another).</param>
    void ConfigureHttpHandler(System.Net.Http.HttpMessageHandler handler)
    {
    }
}
