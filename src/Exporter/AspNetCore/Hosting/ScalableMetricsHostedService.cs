using ScalableMetrics.Exporter.Listening;
using ScalableMetrics.Exporter.Prometheus.Scraping;

namespace ScalableMetrics.Exporter.Hosting;

/// <summary>
/// Builds the options' parts (<see cref="ScalableMetricsParts"/>: with <c>UseOpenTelemetry()</c>, the
/// <c>MeterProvider</c> and the bridge) when the host starts, so that collection is live before the
/// first scrape rather than built by it, and starts
/// the <see cref="MeterListenerHost"/> for the meters the options name (disposed with the container),
/// then the standalone <see cref="ScrapeListener"/> when the options configure one, stopped with the host,
/// and last starts each part (<see cref="IScalableMetricsPart.StartAsync"/>), stopped first, in the reverse order.
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

        ScalableMetricsParts parts = services.GetRequiredService<ScalableMetricsParts>();
        services.GetRequiredService<MeterListenerHost>().Start();
        services.GetRequiredService<RegistryMeterPublication>().Start();
        await services.GetRequiredService<ScrapeListener>().StartAsync(cancellationToken).ConfigureAwait(false);
        foreach (IScalableMetricsPart part in parts.Parts)
        {
            await part.StartAsync(cancellationToken).ConfigureAwait(false);
        }
    }

    public async Task StopAsync(CancellationToken cancellationToken)
    {
        // The parts first (a push exporter's last export), while the registries are still live.
        IReadOnlyList<IScalableMetricsPart> parts = services.GetRequiredService<ScalableMetricsParts>().Parts;
        for (int i = parts.Count - 1; i >= 0; i--)
        {
            await parts[i].StopAsync(cancellationToken).ConfigureAwait(false);
        }

        await services.GetRequiredService<ScrapeListener>().StopAsync(cancellationToken).ConfigureAwait(false);
    }
}
