using System.Diagnostics.Metrics;
using Microsoft.Extensions.DependencyInjection.Extensions;
using ScalableMetrics;
using ScalableMetrics.Exporter;
using ScalableMetrics.Exporter.Hosting;
using ScalableMetrics.Exporter.Listening;
using ScalableMetrics.Exporter.Prometheus.Scraping;
using ScalableMetrics.Exporter.Prometheus.SelfMetrics;
using ScalableMetrics.Exporter.Prometheus.Sources;

namespace Microsoft.Extensions.DependencyInjection;

/// <summary>Registers ScalableMetrics and its Prometheus scrape in a service collection.</summary>
public static class ScalableMetricsServiceCollectionExtensions
{
    /// <summary>
    /// Registers a singleton <see cref="MetricRegistry"/> and a <see cref="PrometheusScraper"/> that
    /// writes it, and the meters <see cref="ScalableMetricsOptions.AddMeter"/> names, for Prometheus.
    /// Map the scrape endpoint with <c>MapScalableMetrics</c>, or, without ASP.NET Core,
    /// serve it from a listener of its own: <see cref="ScalableMetricsOptions.AddScrapeListener"/>.
    /// </summary>
    /// <remarks>
    /// <para>No OpenTelemetry <c>MeterProvider</c> and no <c>MeterBridge</c> are built unless the
    /// options turn them on with the ScalableMetrics.OpenTelemetry package
    /// (<c>AddScalableMetrics(o =&gt; o.UseOpenTelemetry())</c>, or a <c>ConfigureMeterProvider</c> step):
    /// they are then built when the host starts, and disposed with the container.</para>
    /// <para>Calling it again adds nothing twice.</para>
    /// </remarks>
    /// <param name="services">The service collection.</param>
    /// <returns><paramref name="services"/>, to chain calls.</returns>
    /// <exception cref="ArgumentNullException"><paramref name="services"/> is null.</exception>
    public static IServiceCollection AddScalableMetrics(this IServiceCollection services) =>
        AddScalableMetrics(services, configure: null);

    /// <summary>
    /// Registers ScalableMetrics as <see cref="AddScalableMetrics(IServiceCollection)"/> does, and
    /// configures its <see cref="ScalableMetricsOptions"/>.
    /// </summary>
    /// <param name="services">The service collection.</param>
    /// <param name="configure">Configures the options; runs when they are first resolved. Null to leave them be.</param>
    /// <returns><paramref name="services"/>, to chain calls.</returns>
    /// <exception cref="ArgumentNullException"><paramref name="services"/> is null.</exception>
    /// <remarks>Invalid options throw <see cref="OptionsValidationException"/> when the host starts.</remarks>
    public static IServiceCollection AddScalableMetrics(this IServiceCollection services, Action<ScalableMetricsOptions>? configure)
    {
        ArgumentNullException.ThrowIfNull(services);

        OptionsBuilder<ScalableMetricsOptions> options = services.AddOptions<ScalableMetricsOptions>();
        if (configure is not null)
        {
            options.Configure(configure);
        }

        options.ValidateOnStart();
        services.TryAddEnumerable(ServiceDescriptor.Singleton<IValidateOptions<ScalableMetricsOptions>, ScalableMetricsOptionsValidator>());

        services.TryAddSingleton(static provider =>
        {
            ScalableMetricsOptions value = provider.GetRequiredService<IOptions<ScalableMetricsOptions>>().Value;
            return new MetricRegistry(value.Registry, value.MeterName);
        });
        services.TryAddSingleton(static provider =>
        {
            ScalableMetricsOptions value = provider.GetRequiredService<IOptions<ScalableMetricsOptions>>().Value;
            return new MeterListenerHost(
                value.Meters,
                value.MeterName,
                meterName => new MetricRegistry(value.Registry, meterName),
                provider.GetService<ILoggerFactory>()?.CreateLogger<MeterListenerHost>() ?? (ILogger)Microsoft.Extensions.Logging.Abstractions.NullLogger.Instance,
                provider.GetService<IMeterFactory>());
        });

        services.TryAddSingleton<ScalableMetricsParts>();
        services.TryAddSingleton<RegistryMeterPublication>();

        // The library's own metrics, in a registry of their own that every exporter reads as it
        // reads the others; made only where ExportSelfMetrics asks for them (the scrape, OTLP).
        services.TryAddSingleton(static provider =>
        {
            ScalableMetricsOptions value = provider.GetRequiredService<IOptions<ScalableMetricsOptions>>().Value;
            return new SelfMetricsRegistry(provider.GetRequiredService<MetricRegistry>(), value.MeterName, value.MeterVersion, provider.GetRequiredService<MeterListenerHost>());
        });

        // After the registry and the listened meters: the parts' sources (the MeterProvider's
        // other meters), then any source registered as a service.
        services.TryAddSingleton(static provider =>
        {
            ScalableMetricsOptions value = provider.GetRequiredService<IOptions<ScalableMetricsOptions>>().Value;
            return new PrometheusScraper(
                provider.GetRequiredService<MetricRegistry>(),
                value.MeterName,
                value.MeterVersion,
                provider.GetService<ILogger<PrometheusScraper>>(),
                provider.GetRequiredService<MeterListenerHost>(),
                [.. provider.GetRequiredService<ScalableMetricsParts>().ScrapeSources, .. provider.GetServices<IScrapeSource>()],
                value.ExportSelfMetrics ? provider.GetRequiredService<SelfMetricsRegistry>() : null)
            {
                ResourceAttributes = ServiceResource.Attributes(value),
                EnableOpenMetricsTextCreatedSamples = value.EnableOpenMetricsTextCreatedSamples,
                NameTranslation = value.NameTranslation,
            };
        });
        services.TryAddSingleton<ScrapeListener>();

        // The factory a push exporter part (ScalableMetrics.OpenTelemetry's OTLP) sends through, so
        // that the application's handlers, proxy and certificates configured for its named client apply.
        services.AddHttpClient();
        ExporterHttpClient.Add(services);
        services.TryAddEnumerable(ServiceDescriptor.Singleton<IHostedService, ScalableMetricsHostedService>());
        return services;
    }
}
