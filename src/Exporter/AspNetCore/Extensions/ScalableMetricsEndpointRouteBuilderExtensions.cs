using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Http;
using ScalableMetrics.Exporter;
using ScalableMetrics.Exporter.Hosting;
using ScalableMetrics.Exporter.Prometheus.Scraping;

namespace Microsoft.AspNetCore.Routing;

/// <summary>Maps the Prometheus scrape endpoint of ScalableMetrics.</summary>
public static class ScalableMetricsEndpointRouteBuilderExtensions
{
    /// <summary>The path the scrape endpoint is mapped to when none is given: <c>/metrics</c>.</summary>
    public const string DefaultScrapePath = "/metrics";

    private static readonly string[] s_methods = [HttpMethods.Get, HttpMethods.Head];

    /// <summary>
    /// Maps <c>GET <paramref name="path"/></c> (and <c>HEAD</c>, answered with GET's headers and no body) to a Prometheus scrape by the <see cref="PrometheusScraper"/>
    /// that <c>AddScalableMetrics</c> registered: the registry, read directly, then the listened meters
    /// and, with <c>UseOpenTelemetry()</c>, the other meters of its <c>MeterProvider</c>, in OpenMetrics 1.0 when the <c>Accept</c> header asks for
    /// <c>application/openmetrics-text</c> (<see cref="PrometheusScraper.OpenMetricsContentType"/>, as a
    /// Prometheus server does), in Prometheus' protobuf exposition when it prefers delimited
    /// <c>io.prometheus.client.MetricFamily</c> messages (<see cref="PrometheusScraper.ProtobufContentType"/>,
    /// as Prometheus with native histograms on does), else in the text exposition format 0.0.4
    /// (<see cref="PrometheusScraper.ContentType"/>); gzip-compressed (<c>Content-Encoding: gzip</c>)
    /// when the <c>Accept-Encoding</c> header takes gzip. Concurrent scrapes of one format are
    /// coalesced: one that arrives while a collection runs gets that collection's body. A scrape
    /// still waiting past its timeout (the <c>X-Prometheus-Scrape-Timeout-Seconds</c> header
    /// Prometheus sends, else <see cref="ScalableMetricsOptions.ScrapeTimeout"/>) is answered 503
    /// and logged; so is one that arrives, or waits, while the application stops or once the
    /// scraper is disposed. A failed collection answers 500, logged as an error once per cause.
    /// </summary>
    /// <param name="endpoints">The endpoint route builder, e.g. the <c>WebApplication</c>.</param>
    /// <param name="path">The route pattern.</param>
    /// <returns>A builder to add conventions to the endpoint (authorization, host filtering, ...).</returns>
    /// <exception cref="ArgumentNullException"><paramref name="endpoints"/> or <paramref name="path"/> is null.</exception>
    /// <exception cref="InvalidOperationException"><c>AddScalableMetrics</c> was not called on the services.</exception>
    /// <exception cref="Microsoft.Extensions.Options.OptionsValidationException">The <see cref="ScalableMetricsOptions"/> are invalid.</exception>
    public static IEndpointConventionBuilder MapScalableMetrics(this IEndpointRouteBuilder endpoints, string path = DefaultScrapePath)
    {
        ArgumentNullException.ThrowIfNull(endpoints);
        ArgumentNullException.ThrowIfNull(path);

        // Resolving the parts builds them (the MeterProvider) now if the host has not yet, so the
        // endpoint works even where no hosted service runs.
        _ = endpoints.ServiceProvider.GetService<ScalableMetricsParts>()
            ?? throw new InvalidOperationException("ScalableMetrics is not registered: call services.AddScalableMetrics() (or builder.AddScalableMetrics()) first.");
        PrometheusScraper scraper = endpoints.ServiceProvider.GetRequiredService<PrometheusScraper>();
        TimeSpan defaultTimeout = endpoints.ServiceProvider.GetRequiredService<IOptions<ScalableMetricsOptions>>().Value.ScrapeTimeout;
        CancellationToken stopping = endpoints.ServiceProvider.GetService<IHostApplicationLifetime>()?.ApplicationStopping ?? CancellationToken.None;

        // RFC 9110 §9.1: a general-purpose server supports HEAD wherever it supports GET.
        return endpoints.MapMethods(path, s_methods, context => ScrapeEndpoint.HandleAsync(scraper, defaultTimeout, stopping, context)).WithDisplayName("Prometheus scrape");
    }
}
