using System.Diagnostics.Metrics;
using Microsoft.AspNetCore.Hosting.Server;
using Microsoft.AspNetCore.Hosting.Server.Features;
using Microsoft.AspNetCore.Http.Features;

namespace ScalableMetrics.Samples.WebApi;

/// <summary>
/// Builds the sample API: <c>GET /hello</c>, and <c>GET /metrics</c> for Prometheus, every request
/// counted and timed by <see cref="RequestMetricsMiddleware"/>, the observable gauge
/// <c>webapi.registry.series</c> (how many series the registry keeps), and the instruments of the
/// <see cref="TakenMeters"/>, ASP.NET Core's, Kestrel's and the runtime's own. Separate from
/// <c>Program</c> so that tests can start it in-process.
/// </summary>
public static class WebApiApp
{
    /// <summary>Where the API listens when neither <c>--urls</c> nor configuration says.</summary>
    public const string DefaultUrl = "http://127.0.0.1:5000";

    /// <summary>
    /// The meters whose instruments the registry takes, with no change to the code that records
    /// into them: ASP.NET Core's request metrics (<c>http.server.request.duration</c>,
    /// <c>http.server.active_requests</c>), Kestrel's connection metrics and the runtime's GC,
    /// thread-pool, JIT and process metrics. Their exported names (<c>http_server_*</c>,
    /// <c>kestrel_*</c>, <c>dotnet_*</c>) meet none of the sample's own (<c>webapi_*</c>).
    /// </summary>
    public static readonly IReadOnlyList<string> TakenMeters = ["Microsoft.AspNetCore.Hosting", "Microsoft.AspNetCore.Server.Kestrel", "System.Runtime"];

    private static readonly byte[] s_helloBody = "Hello from ScalableMetrics!\n"u8.ToArray();

    /// <summary>Builds the application; start it with <c>RunAsync</c> or <c>StartAsync</c>.</summary>
    /// <param name="args">Command-line arguments, e.g. <c>--urls http://127.0.0.1:0</c> for any free port,
    /// <c>--Sample:AwkwardSeries=true</c> for the series of <see cref="AwkwardSeries"/>.</param>
    /// <returns>The application, not yet started. Once started, it prints <c>Listening on URL</c>
    /// for each address it is bound to, with the real port.</returns>
    public static WebApplication Create(string[] args)
    {
        WebApplicationBuilder builder = WebApplication.CreateBuilder(args);
        if (string.IsNullOrEmpty(builder.Configuration[WebHostDefaults.ServerUrlsKey])
            && string.IsNullOrEmpty(builder.Configuration[WebHostDefaults.HttpPortsKey])
            && string.IsNullOrEmpty(builder.Configuration[WebHostDefaults.HttpsPortsKey]))
        {
            builder.WebHost.UseUrls(DefaultUrl);
        }

        // Per-request logs at Information would make the console the bottleneck of a load test.
        builder.Logging.AddFilter("Microsoft.AspNetCore", LogLevel.Warning);
        builder.AddScalableMetrics(options => options.AddMeter([.. TakenMeters]));

        WebApplication app = builder.Build();
        MetricRegistry registry = app.Services.GetRequiredService<MetricRegistry>();
        CreateSeriesGauge(registry);
        if (app.Configuration.GetValue<bool>(AwkwardSeries.ConfigurationKey))
        {
            AwkwardSeries.Record(registry);
        }

        app.UseMiddleware<RequestMetricsMiddleware>();
        app.MapGet("/hello", HelloAsync);
        app.MapScalableMetrics();
        app.Lifetime.ApplicationStarted.Register(() => PrintAddresses(app));
        return app;
    }

    // A value the registry already keeps, read only when scraped: an observable gauge, not a gauge set on every change.
    private static void CreateSeriesGauge(MetricRegistry registry) =>
        registry.CreateObservableGauge(
            "webapi.registry.series",
            () => [new Measurement<long>(registry.Instruments.Sum(static instrument => (long)instrument.SeriesCount))],
            "{series}",
            "Series the registry keeps, over all its instruments, overflow series included.");

    // Content-Length lets ApacheBench's HTTP/1.0 keep-alive (ab -k) reuse the connection.
    private static Task HelloAsync(HttpContext context)
    {
        context.Response.ContentType = "text/plain; charset=utf-8";
        context.Response.ContentLength = s_helloBody.Length;
        return context.Response.Body.WriteAsync(s_helloBody, context.RequestAborted).AsTask();
    }

    private static void PrintAddresses(WebApplication app)
    {
        ICollection<string> addresses = app.Services.GetRequiredService<IServer>().Features.GetRequiredFeature<IServerAddressesFeature>().Addresses;
        foreach (string address in addresses)
        {
            Console.WriteLine($"Listening on {address}");
        }
    }
}
