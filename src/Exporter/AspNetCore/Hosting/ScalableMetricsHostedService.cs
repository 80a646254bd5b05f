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
/// A stop stops only what the start started: after a failed start, nothing it did not reach.
/// Logs at start which write path the registries use, and why (<see cref="WritePathLog"/>).
/// </summary>
internal sealed class ScalableMetricsHostedService(IServiceProvider services) : IHostedService
{
    // The parts whose start completed, in their order, and the listener once resolved: what the stop stops.
    private readonly List<IScalableMetricsPart> _started = [];
    private ScrapeListener? _listener;

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
        _listener = services.GetRequiredService<ScrapeListener>();
        await _listener.StartAsync(cancellationToken).ConfigureAwait(false);
        foreach (IScalableMetricsPart part in parts.Parts)
        {
            await part.StartAsync(cancellationToken).ConfigureAwait(false);
            _started.Add(part);
        }
    }

    public async Task StopAsync(CancellationToken cancellationToken)
    {
        // Only what started: a start that failed (a setting the start refuses) built no parts, and
        // building them here would throw its error again from the stop.
        // The parts first (a push exporter's last export), while the registries are still live.
        for (int i = _started.Count - 1; i >= 0; i--)
        {
            await _started[i].StopAsync(cancellationToken).ConfigureAwait(false);
        }

        _started.Clear();
        if (_listener is { } listener)
        {
            await listener.StopAsync(cancellationToken).ConfigureAwait(false);
        }
    }
}
