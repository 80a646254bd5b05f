using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Options;
using ScalableMetrics.Exporter.Listening;
using ScalableMetrics.Exporter.OpenTelemetry;
using ScalableMetrics.Exporter.OpenTelemetry.Otlp;
using ScalableMetrics.Exporter.Prometheus.Scraping;

namespace ScalableMetrics.Exporter.Hosting;

/// <summary>
/// Builds the <see cref="ScalableMetricsMeterProvider"/> (and with it the bridge) when the host
/// starts, so that collection is live before the first scrape rather than built by it, and starts
/// the <see cref="MeterListenerHost"/> for the meters the options name (disposed with the container),
/// then the standalone <see cref="ScrapeListener"/> when the options configure one, stopped with the host,
/// and last the <see cref="OtlpExportService"/> (which does nothing unless <c>AddOtlpExporter</c> turned
/// it on), stopped first. One hosted service for all, so that their order is this one's.
/// Logs at start which write path the registries use, and why (<see cref="WritePathLog"/>).
/// </summary>
internal sealed class ScalableMetricsHostedService(IServiceProvider services) : IHostedService
{
    public async Task StartAsync(CancellationToken cancellationToken)
    {
        if (services.GetService<ILoggerFactory>() is { } loggers)
        {
            ScalableMetricsOptions options = services.GetRequiredService<IOptions<ScalableMetricsOptions>>().Value;
            ILogger logger = loggers.CreateLogger<ScalableMetricsHostedService>();
            LegacyRegistryKeys.Warn(options, logger);
            WritePathLog.Log(logger, services.GetRequiredService<MetricRegistry>(), options);
        }

        services.GetRequiredService<ScalableMetricsMeterProvider>();
        services.GetRequiredService<MeterListenerHost>().Start();
        await services.GetRequiredService<ScrapeListener>().StartAsync(cancellationToken).ConfigureAwait(false);
        if (services.GetService<OtlpExportService>() is { } otlp)
        {
            await otlp.StartAsync(cancellationToken).ConfigureAwait(false);
        }
    }

    // The OTLP exporter's final export first, while every registry is still live.
    public async Task StopAsync(CancellationToken cancellationToken)
    {
        if (services.GetService<OtlpExportService>() is { } otlp)
        {
            await otlp.StopAsync(cancellationToken).ConfigureAwait(false);
        }

        await services.GetRequiredService<ScrapeListener>().StopAsync(cancellationToken).ConfigureAwait(false);
    }
}
