using Microsoft.Extensions.Logging.Abstractions;
using OpenTelemetry.Metrics;
using ScalableMetrics.Exporter.Hosting;
using ScalableMetrics.Exporter.Listening;
using ScalableMetrics.Exporter.Prometheus.Sources;

namespace ScalableMetrics.Exporter.OpenTelemetry;

/// <summary>
/// What <see cref="OpenTelemetryFeature"/> builds for a container: the <see cref="MeterBridge"/> that
/// publishes the registry as a meter, the <see cref="PrometheusPullExporter"/> that reads the
/// <c>MeterProvider</c>'s other meters for the scrape (leaving the bridge's out, and its callbacks
/// unrun: the scrape writes the registry from the registry itself), and the <see cref="ScalableMetricsMeterProvider"/>.
/// Disposed with the container: the provider first, then the bridge (unless it is the container's service).
/// </summary>
internal sealed class OpenTelemetryPart : IScalableMetricsPart
{
    // False where the bridge is the container's service (BridgeServices), which the container disposes.
    private readonly bool _ownsBridge;

    public OpenTelemetryPart(IServiceProvider services, IReadOnlyList<Action<MeterProviderBuilder>> configurations)
    {
        ScalableMetricsOptions options = services.GetRequiredService<IOptions<ScalableMetricsOptions>>().Value;
        MeterBridge? shared = services.GetService<MeterBridge>();
        _ownsBridge = shared is null;
        Bridge = shared ?? BridgeServices.Create(services);
        Exporter = new PrometheusPullExporter(Bridge);
        try
        {
            MeterProvider = new ScalableMetricsMeterProvider(Bridge, Exporter, services.GetRequiredService<MeterListenerHost>(), options, configurations);
        }
        catch
        {
            DisposeBridge();
            Exporter.Dispose();
            throw;
        }

        ILogger logger = services.GetService<ILoggerFactory>()?.CreateLogger<PrometheusScraper>() ?? (ILogger)NullLogger.Instance;
        ScrapeSource = new MeterProviderSource(Exporter, logger);
    }

    /// <summary>The bridge of the container's registry.</summary>
    public MeterBridge Bridge { get; }

    /// <summary>The exporter on the <see cref="MeterProvider"/>'s Prometheus reader.</summary>
    public PrometheusPullExporter Exporter { get; }

    /// <summary>The <c>MeterProvider</c>.</summary>
    public ScalableMetricsMeterProvider MeterProvider { get; }

    /// <inheritdoc/>
    public IScrapeSource ScrapeSource { get; }

    /// <summary>The part <paramref name="services"/>' options built, or null where they did not turn OpenTelemetry on.</summary>
    public static OpenTelemetryPart? Of(IServiceProvider services) =>
        services.GetService<ScalableMetricsParts>()?.Parts.OfType<OpenTelemetryPart>().SingleOrDefault();

    public void Dispose()
    {
        // The provider disposes its reader and with it the exporter.
        MeterProvider.Dispose();
        DisposeBridge();
    }

    private void DisposeBridge()
    {
        if (_ownsBridge)
        {
            Bridge.Dispose();
        }
    }
}
