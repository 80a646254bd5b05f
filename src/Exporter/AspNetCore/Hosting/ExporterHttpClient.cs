using Microsoft.Extensions.DependencyInjection.Extensions;
using Microsoft.Extensions.Http;

namespace ScalableMetrics.Exporter.Hosting;

/// <summary>
/// The <see cref="IHttpClientFactory"/> client a push exporter part (ScalableMetrics.OpenTelemetry's
/// OTLP) sends with, registered by <c>AddScalableMetrics</c>: the application's own configuration of
/// that name (a proxy, a handler) applies, and no other client of the application is touched.
/// </summary>
/// <remarks>
/// The factory's default logging is removed for this client only: it writes four Information lines
/// per request and, per failed request, an Information entry with the whole exception (event 104),
/// which for an exporter retrying a receiver that is down repeats the same stack trace every few
/// seconds. The exporter logs each cause once itself. <c>AddHttpClient(Name).AddDefaultLogger()</c>,
/// after <c>AddScalableMetrics</c>, brings the factory's logging back.
/// </remarks>
internal static class ExporterHttpClient
{
    /// <summary>The client's name: <c>ScalableMetrics.Otlp</c>.</summary>
    public const string Name = "ScalableMetrics.Otlp";

    /// <summary>Registers the client: no factory logging, and each part's handler configuration
    /// (<see cref="ExporterHttpHandlerSetup"/>), applied to the primary handler the client is built
    /// with, whether the application chose its own before or after.</summary>
    /// <param name="services">The service collection.</param>
    public static void Add(IServiceCollection services)
    {
        services.AddHttpClient(Name).RemoveAllLoggers();
        services.TryAddEnumerable(ServiceDescriptor.Singleton<IPostConfigureOptions<HttpClientFactoryOptions>, ExporterHttpHandlerSetup>());
    }
}
