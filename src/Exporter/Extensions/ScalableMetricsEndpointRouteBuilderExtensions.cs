using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Http;
using Microsoft.Extensions.DependencyInjection;
using ScalableMetrics.Exporter;
using ScalableMetrics.Exporter.Hosting;
using ScalableMetrics.Exporter.Prometheus.Exposition;

namespace Microsoft.AspNetCore.Routing;

/// <summary>Maps the Prometheus scrape endpoint of ScalableMetrics.</summary>
public static class ScalableMetricsEndpointRouteBuilderExtensions
{
    /// <summary>The path the scrape endpoint is mapped to when none is given: <c>/metrics</c>.</summary>
    public const string DefaultScrapePath = "/metrics";

    /// <summary>
    /// Maps <c>GET <paramref name="path"/></c> to a Prometheus scrape by the <see cref="PrometheusScraper"/>
    /// that <c>AddScalableMetrics</c> registered: the registry, read directly, then the other meters
    /// of its <c>MeterProvider</c>, in the text exposition format 0.0.4
    /// (<see cref="PrometheusScraper.ContentType"/>). Scrapes run one at a time; concurrent ones
    /// wait. A failed collection answers 500.
    /// </summary>
    /// <param name="endpoints">The endpoint route builder, e.g. the <c>WebApplication</c>.</param>
    /// <param name="path">The route pattern.</param>
    /// <returns>A builder to add conventions to the endpoint (authorization, host filtering, ...).</returns>
    /// <exception cref="ArgumentNullException"><paramref name="endpoints"/> or <paramref name="path"/> is null.</exception>
    /// <exception cref="InvalidOperationException"><c>AddScalableMetrics</c> was not called on the services.</exception>
    /// <exception cref="Microsoft.Extensions.Options.OptionsValidationException">The <see cref="ScalableMetricsOptions"/> are invalid.</exception>
    public static IEndpointConventionBuilder MapPrometheusScrapingEndpoint(this IEndpointRouteBuilder endpoints, string path = DefaultScrapePath)
    {
        ArgumentNullException.ThrowIfNull(endpoints);
        ArgumentNullException.ThrowIfNull(path);

        // Resolving the provider builds it now if the host has not yet, so the endpoint works
        // even where no hosted service runs.
        _ = endpoints.ServiceProvider.GetService<ScalableMetricsMeterProvider>()
            ?? throw new InvalidOperationException("ScalableMetrics is not registered: call services.AddScalableMetrics() (or builder.AddScalableMetrics()) first.");
        PrometheusScraper scraper = endpoints.ServiceProvider.GetRequiredService<PrometheusScraper>();

        return endpoints.MapGet(path, context => ScrapeAsync(scraper, context)).WithDisplayName("Prometheus scrape");
    }

    private static async Task ScrapeAsync(PrometheusScraper scraper, HttpContext context)
    {
        byte[] body;
        // Native histograms exist only in the protobuf exposition: served when asked for first and complete.
        bool protobuf = scraper.CanScrapeProtobuf && ProtobufNegotiation.PrefersProtobuf(context.Request.Headers.Accept.ToString());
        try
        {
            body = protobuf ? await scraper.ScrapeProtobufAsync(context.RequestAborted).ConfigureAwait(false) : await scraper.ScrapeAsync(context.RequestAborted).ConfigureAwait(false);
        }
        catch (Exception exception) when (exception is InvalidOperationException or ObjectDisposedException)
        {
            context.Response.StatusCode = StatusCodes.Status500InternalServerError;
            return;
        }

        context.Response.StatusCode = StatusCodes.Status200OK;
        context.Response.ContentType = protobuf ? ProtobufExpositionWriter.ContentType : PrometheusScraper.ContentType;
        context.Response.ContentLength = body.Length;
        await context.Response.Body.WriteAsync(body, context.RequestAborted).ConfigureAwait(false);
    }
}
