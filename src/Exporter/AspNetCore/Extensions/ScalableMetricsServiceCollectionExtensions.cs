using System.Diagnostics.Metrics;
using Microsoft.Extensions.DependencyInjection.Extensions;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Options;
using ScalableMetrics;
using ScalableMetrics.Exporter;
using ScalableMetrics.Exporter.Hosting;
using ScalableMetrics.Exporter.Listening;
using ScalableMetrics.Exporter.OpenTelemetry;
using ScalableMetrics.Exporter.Prometheus.Scraping;

namespace Microsoft.Extensions.DependencyInjection;

/// <summary>Registers ScalableMetrics, its OpenTelemetry bridge and its Prometheus exporter in a service collection.</summary>
public static class ScalableMetricsServiceCollectionExtensions
{
    /// <summary>
    /// Registers a singleton <see cref="MetricRegistry"/>, a <see cref="PrometheusScraper"/> that
    /// writes it (and the other meters of the <c>MeterProvider</c>) for Prometheus, a
    /// <see cref="MeterBridge"/> that publishes it as a meter, a <see cref="PrometheusPullExporter"/>,
    /// and an OpenTelemetry <c>MeterProvider</c>, built when the host starts and disposed with the
    /// container. Map the scrape endpoint with <c>MapPrometheusScrapingEndpoint</c>, or, without
    /// ASP.NET Core, serve it from a listener of its own: <see cref="ScalableMetricsOptions.AddScrapeListener"/>.
    /// </summary>
    /// <param name="services">The service collection.</param>
    /// <returns><paramref name="services"/>, to chain calls.</returns>
    /// <exception cref="ArgumentNullException"><paramref name="services"/> is null.</exception>
    /// <remarks>Calling it again adds nothing twice.</remarks>
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
            return new MetricRegistry(value.Registry);
        });
        services.TryAddSingleton(static provider =>
        {
            ScalableMetricsOptions value = provider.GetRequiredService<IOptions<ScalableMetricsOptions>>().Value;
            return new MeterBridge(provider.GetRequiredService<MetricRegistry>(), value.MeterName, value.MeterVersion, provider.GetService<IMeterFactory>());
        });
        services.TryAddSingleton(static provider =>
        {
            ScalableMetricsOptions value = provider.GetRequiredService<IOptions<ScalableMetricsOptions>>().Value;
            return new MeterListenerHost(
                value.Meters,
                value.MeterName,
                () => new MetricRegistry(value.Registry),
                provider.GetService<ILoggerFactory>()?.CreateLogger<MeterListenerHost>() ?? (ILogger)Microsoft.Extensions.Logging.Abstractions.NullLogger.Instance,
                provider.GetService<IMeterFactory>());
        });

        // The bridge's meter is written from the registry itself: the exporter leaves it out.
        services.TryAddSingleton(static provider => new PrometheusPullExporter(
            provider.GetRequiredService<IOptions<ScalableMetricsOptions>>().Value.MeterName));
        services.TryAddSingleton(static provider =>
        {
            ScalableMetricsOptions value = provider.GetRequiredService<IOptions<ScalableMetricsOptions>>().Value;
            return new PrometheusScraper(
                provider.GetRequiredService<MetricRegistry>(),
                value.MeterName,
                value.MeterVersion,
                provider.GetRequiredService<PrometheusPullExporter>(),
                provider.GetService<ILogger<PrometheusScraper>>(),
                provider.GetRequiredService<MeterListenerHost>())
            {
                ResourceAttributes = ServiceResource.Attributes(value),
            };
        });
        services.TryAddSingleton<ScalableMetricsMeterProvider>();
        services.TryAddSingleton<ScrapeListener>();
        services.TryAddEnumerable(ServiceDescriptor.Singleton<IHostedService, ScalableMetricsHostedService>());
        return services;
    }
}
