using ScalableMetrics.Exporter.Hosting;
using ScalableMetrics.Exporter.Prometheus.Sources;

namespace ScalableMetrics.Exporter.OpenTelemetry.Otlp.Transport;

/// <summary>
/// The OTLP exporter of one container: its options, settled and validated when the host starts,
/// and the <see cref="OtlpExportService"/> that pushes every interval and once more on stop.
/// <see cref="ScalableMetricsHostedService"/> starts it after the listeners and stops it before
/// them, so that its final export reads registries that are still live. Adds nothing to a scrape.
/// </summary>
internal sealed class OtlpPart : IScalableMetricsPart
{
    /// <summary>Builds the part from the container and settled options.</summary>
    /// <param name="services">The container.</param>
    /// <param name="options">The exporter's options, validated.</param>
    public OtlpPart(IServiceProvider services, ScalableMetricsOtlpOptions options)
    {
        Options = options;
        Tls = OtlpTls.Load(options);
        Service = new OtlpExportService(services, options);
    }

    /// <summary>The certificates the options name, loaded; null for the system's defaults.</summary>
    public OtlpTls? Tls { get; }

    /// <summary>The exporter's options, as the host started with them.</summary>
    public ScalableMetricsOtlpOptions Options { get; }

    /// <summary>The periodic push.</summary>
    public OtlpExportService Service { get; }

    /// <summary>None: OTLP is pushed, not scraped.</summary>
    public IScrapeSource? ScrapeSource => null;

    /// <summary>The container's OTLP part, or null where <c>AddOtlpExporter</c> did not turn it on.</summary>
    /// <param name="services">The container.</param>
    /// <returns>The part, or null.</returns>
    public static OtlpPart? Of(IServiceProvider services) =>
        services.GetService<ScalableMetricsParts>()?.Parts.OfType<OtlpPart>().SingleOrDefault();

    /// <inheritdoc/>
    public Task StartAsync(CancellationToken cancellationToken) => Service.StartAsync(cancellationToken);

    /// <inheritdoc/>
    public Task StopAsync(CancellationToken cancellationToken) => Service.StopAsync(cancellationToken);

    /// <inheritdoc/>
    public void ConfigureHttpHandler(HttpMessageHandler handler) => Tls?.Configure(handler);

    /// <inheritdoc/>
    public void Dispose() => Service.Dispose();
}
