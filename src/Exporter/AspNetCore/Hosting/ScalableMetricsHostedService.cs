using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Options;
using ScalableMetrics.Exporter.Listening;
using ScalableMetrics.Exporter.Prometheus.Scraping;

namespace ScalableMetrics.Exporter.Hosting;

/// <summary>
/// Builds the options' parts (<see cref="ScalableMetricsParts"/>: with <c>UseOpenTelemetry()</c>, the
/// <c>MeterProvider</c> and the bridge) when the host starts, so that collection is live before the
/// first scrape rather than built by it, and starts
/// the <see cref="MeterListenerHost"/> for the meters the options name (disposed with the container),
/// then the standalone <see cref="ScrapeListener"/> when the options configure one, stopped with the host.
/// </summary>
internal sealed class ScalableMetricsHostedService(IServiceProvider services) : IHostedService
{
    public Task StartAsync(CancellationToken cancellationToken)
    {
        if (services.GetService<ILoggerFactory>() is { } loggers)
        {
            LegacyRegistryKeys.Warn(services.GetRequiredService<IOptions<ScalableMetricsOptions>>().Value, loggers.CreateLogger<ScalableMetricsHostedService>());
        }

        services.GetRequiredService<ScalableMetricsParts>();
        services.GetRequiredService<MeterListenerHost>().Start();
        return services.GetRequiredService<ScrapeListener>().StartAsync(cancellationToken);
    }

    public Task StopAsync(CancellationToken cancellationToken) => services.GetRequiredService<ScrapeListener>().StopAsync(cancellationToken);
}
