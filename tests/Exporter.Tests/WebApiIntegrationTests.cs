using System.Net;
using System.Net.Http.Headers;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Hosting;
using Microsoft.AspNetCore.Http;
using Microsoft.AspNetCore.Routing;
using Microsoft.Extensions.DependencyInjection;
using ScalableMetrics.Samples.WebApi;

namespace ScalableMetrics.Exporter.Tests;

/// <summary>
/// The sample API, started in-process on a free loopback port, counts and times exactly the
/// requests sent, and serves the count, the duration histogram and the in-flight count at
/// <c>/metrics</c>, with ASP.NET Core's, Kestrel's and the runtime's instruments taken through
/// <c>AddMeter</c>, each once.
/// </summary>
/// <remarks>
/// The sample publishes on the default meter name, which any MeterProvider in the process that
/// listens to that name would also see; no other test uses it, and these tests run one at a time.
/// </remarks>
public sealed class WebApiIntegrationTests
{
    private const int HelloRequests = 50;

    [Fact]
    public async Task CountsEveryHelloRequestAndServesTheCountAtMetrics()
    {
        await using WebApplication app = WebApiApp.Create(["--urls", "http://127.0.0.1:0"]);
        await app.StartAsync();
        using var client = new HttpClient { BaseAddress = new Uri(Assert.Single(app.Urls)) };
        Assert.Matches(@"^http://127\.0\.0\.1:\d+$", client.BaseAddress.ToString().TrimEnd('/'));
        Assert.NotEqual(0, client.BaseAddress.Port);

        // Five clients at once, ten requests each.
        await Task.WhenAll(Enumerable.Range(0, 5).Select(async _ =>
        {
            for (int i = 0; i < HelloRequests / 5; i++)
            {
                using HttpResponseMessage hello = await client.GetAsync("/hello");
                Assert.Equal(HttpStatusCode.OK, hello.StatusCode);
                Assert.Equal("Hello from ScalableMetrics!\n", await hello.Content.ReadAsStringAsync());
            }
        }));
        using HttpResponseMessage missing = await client.GetAsync("/no/such/route");
        Assert.Equal(HttpStatusCode.NotFound, missing.StatusCode);

        using HttpResponseMessage scrape = await client.GetAsync("/metrics");

        Assert.Equal(HttpStatusCode.OK, scrape.StatusCode);
        MediaTypeHeaderValue contentType = scrape.Content.Headers.ContentType!;
        Assert.Equal("text/plain", contentType.MediaType);
        Assert.Equal("utf-8", contentType.CharSet);
        Assert.Contains(contentType.Parameters, p => p.Name == "version" && p.Value == "0.0.4");
        string text = await scrape.Content.ReadAsStringAsync();
        IReadOnlyList<PrometheusSample> samples = PrometheusText.Parse(text);

        // Counted when the response starts, so every answered request is in the very next scrape.
        PrometheusSample hellos = PrometheusText.Single(samples, "webapi_requests_total", ("otel_scope_name", "ScalableMetrics"), ("http_route", "/hello"), ("http_response_status_code", "200"));
        Assert.Equal(HelloRequests.ToString(System.Globalization.CultureInfo.InvariantCulture), hellos.Value);
        Assert.Equal("1", PrometheusText.Single(samples, "webapi_requests_total", ("http_route", RequestMetricsMiddleware.UnmatchedRoute), ("http_response_status_code", "404")).Value);
        Assert.Contains("# TYPE webapi_requests_total counter\n", text);
        Assert.Contains("# TYPE webapi_request_duration_seconds histogram\n", text);
        Assert.Contains("# TYPE webapi_requests_in_flight gauge\n", text);
        Assert.Contains("# TYPE webapi_registry_series gauge\n", text);
        Assert.True(PrometheusText.Single(samples, "webapi_registry_series").NumericValue >= 3, "the registry keeps at least the /hello, 404 and /metrics series");

        // The duration is recorded, and the request leaves the in-flight count, after the
        // response: poll briefly for the last ones.
        IReadOnlyList<PrometheusSample> later = samples;
        for (int attempt = 0; attempt < 50 && !AllTimed(later); attempt++)
        {
            await Task.Delay(100);
            later = PrometheusText.Parse(await client.GetStringAsync("/metrics"));
        }

        PrometheusSample[] buckets = [.. later.Where(s => s.Name == "webapi_request_duration_seconds_bucket" && s.Labels["http_route"] == "/hello")];
        Assert.Equal([.. RequestMetricsMiddleware.DurationBoundaries.Select(b => b.ToString(System.Globalization.CultureInfo.InvariantCulture)), "+Inf"], buckets.Select(b => b.Labels["le"]));
        Assert.All(buckets.Zip(buckets.Skip(1)), pair => Assert.True(pair.Second.NumericValue >= pair.First.NumericValue, "buckets not cumulative"));
        Assert.Equal(HelloRequests, buckets[^1].NumericValue);
        Assert.Equal(HelloRequests, PrometheusText.Single(later, "webapi_request_duration_seconds_count", ("http_route", "/hello")).NumericValue);
        Assert.Equal("0", PrometheusText.Single(later, "webapi_requests_in_flight", ("http_route", "/hello")).Value);
        await app.StopAsync();
    }

    private static bool AllTimed(IReadOnlyList<PrometheusSample> samples) =>
        samples.Any(s => s.Name == "webapi_request_duration_seconds_count" && s.Labels["http_route"] == "/hello" && s.NumericValue == HelloRequests)
        && samples.Any(s => s.Name == "webapi_requests_in_flight" && s.Labels["http_route"] == "/hello" && s.Value == "0");

    [Fact]
    public async Task ServesAspnetcoreKestrelAndRuntimeInstrumentsOnceWithEveryHelloRequestInHttpServerRequestDuration()
    {
        await using WebApplication app = WebApiApp.Create(["--urls", "http://127.0.0.1:0"]);
        await app.StartAsync();
        using var client = new HttpClient { BaseAddress = new Uri(Assert.Single(app.Urls)) };

        await Task.WhenAll(Enumerable.Range(0, 5).Select(async _ =>
        {
            for (int i = 0; i < HelloRequests / 5; i++)
            {
                using HttpResponseMessage hello = await client.GetAsync("/hello");
                Assert.Equal(HttpStatusCode.OK, hello.StatusCode);
            }
        }));

        // Kestrel records kestrel.connection.duration when a connection ends: one request asks
        // for its connection to be closed.
        using (var closing = new HttpRequestMessage(HttpMethod.Get, "/hello"))
        {
            closing.Headers.ConnectionClose = true;
            using HttpResponseMessage response = await client.SendAsync(closing);
            Assert.Equal(HttpStatusCode.OK, response.StatusCode);
        }

        // ASP.NET Core records http.server.request.duration when the request ends, after the
        // response has left, and Kestrel the connection's duration once it is closed: poll briefly.
        string text = await client.GetStringAsync("/metrics");
        for (int attempt = 0; attempt < 50 && !(AspNetCoreHelloCount(PrometheusText.Parse(text)) == HelloRequests + 1 && text.Contains("\nkestrel_connection_duration_seconds_count{", StringComparison.Ordinal)); attempt++)
        {
            await Task.Delay(100);
            text = await client.GetStringAsync("/metrics");
        }

        IReadOnlyList<PrometheusSample> samples = PrometheusText.Parse(text);
        (string, string)[] hello =
        [
            ("otel_scope_name", "Microsoft.AspNetCore.Hosting"), ("http_route", "/hello"), ("http_request_method", "GET"),
            ("http_response_status_code", "200"), ("url_scheme", "http"), ("network_protocol_version", "1.1"),
        ];
        Assert.Equal(HelloRequests + 1, PrometheusText.Single(samples, "http_server_request_duration_seconds_count", hello).NumericValue);
        Assert.Equal(HelloRequests + 1, AspNetCoreHelloCount(samples));
        PrometheusSample[] buckets = [.. samples.Where(s => s.Name == "http_server_request_duration_seconds_bucket" && s.Labels.GetValueOrDefault("http_route") == "/hello")];
        Assert.Equal([.. RequestMetricsMiddleware.DurationBoundaries.Select(b => b.ToString(System.Globalization.CultureInfo.InvariantCulture)), "+Inf"], buckets.Select(b => b.Labels["le"]));
        Assert.Equal(HelloRequests + 1, buckets[^1].NumericValue);

        // Each instrument once: one family, its TYPE written once (PrometheusText also refuses a
        // TYPE twice and two samples of one series), whatever else reads those meters.
        foreach (string family in (string[])[
            "http_server_request_duration_seconds histogram", "http_server_active_requests gauge",
            "kestrel_active_connections gauge", "kestrel_connection_duration_seconds histogram",
            "dotnet_gc_collections_total counter", "dotnet_thread_pool_thread_count_total counter", "dotnet_process_memory_working_set_bytes gauge",
            "webapi_request_duration_seconds histogram"])
        {
            Assert.True(Occurrences(text, "# TYPE " + family + "\n") == 1, $"# TYPE {family}: {Occurrences(text, "# TYPE " + family + "\n")} times in\n{text}");
        }

        Assert.Equal(["gen0", "gen1", "gen2"], samples.Where(s => s.Name == "dotnet_gc_collections_total").Select(s => s.Labels["gc_heap_generation"]).Order(StringComparer.Ordinal));
        Assert.Equal("System.Runtime", PrometheusText.Single(samples, "dotnet_thread_pool_thread_count_total").Labels["otel_scope_name"]);
        Assert.True(PrometheusText.Single(samples, "dotnet_thread_pool_thread_count_total").NumericValue >= 1, "the thread pool has at least the thread that served the scrape");
        await app.StopAsync();
    }

    private static double AspNetCoreHelloCount(IReadOnlyList<PrometheusSample> samples) =>
        samples.Where(s => s.Name == "http_server_request_duration_seconds_count" && s.Labels.GetValueOrDefault("http_route") == "/hello").Sum(s => s.NumericValue);

    private static int Occurrences(string text, string line) =>
        (text.Length - text.Replace(line, string.Empty, StringComparison.Ordinal).Length) / line.Length;

    [Fact]
    public async Task ARequestIsCountedBeforeItsResponseReachesTheClient()
    {
        await using WebApplication app = WebApiApp.Create(["--urls", "http://127.0.0.1:0"]);
        using var handlerMayReturn = new SemaphoreSlim(0);
        app.MapGet("/slow-tail", async context =>
        {
            // The whole response is sent, then the handler keeps running.
            context.Response.ContentLength = 2;
            await context.Response.Body.WriteAsync("ok"u8.ToArray());
            await context.Response.Body.FlushAsync();
            await handlerMayReturn.WaitAsync(TimeSpan.FromSeconds(30));
        });
        await app.StartAsync();
        var baseAddress = new Uri(Assert.Single(app.Urls));
        using var client = new HttpClient { BaseAddress = baseAddress };

        // The scraper has a connection of its own: the first one is busy until the handler returns.
        using var scraper = new HttpClient { BaseAddress = baseAddress };

        Assert.Equal("ok", await client.GetStringAsync("/slow-tail"));
        IReadOnlyList<PrometheusSample> samples = PrometheusText.Parse(await scraper.GetStringAsync("/metrics"));
        handlerMayReturn.Release();

        Assert.Equal("1", PrometheusText.Single(samples, "webapi_requests_total", ("http_route", "/slow-tail"), ("http_response_status_code", "200")).Value);
        Assert.Equal("0", PrometheusText.Single(samples, "webapi_request_duration_seconds_count", ("http_route", "/slow-tail")).Value);
        Assert.Equal("1", PrometheusText.Single(samples, "webapi_requests_in_flight", ("http_route", "/slow-tail")).Value);
        await app.StopAsync();
    }

    [Fact]
    public async Task TheScrapePathCanBeChosen()
    {
        WebApplicationBuilder builder = WebApplication.CreateBuilder();
        builder.WebHost.UseUrls("http://127.0.0.1:0");
        builder.Services.AddScalableMetrics(o => o.MeterName = "test.path." + Guid.NewGuid().ToString("N"));
        await using WebApplication app = builder.Build();
        app.MapScalableMetrics("/custom/scrape");
        app.Services.GetRequiredService<MetricRegistry>().CreateCounter("custom.path", description: "Custom.").Add(2);
        await app.StartAsync();
        using var client = new HttpClient { BaseAddress = new Uri(Assert.Single(app.Urls)) };

        using HttpResponseMessage defaultPath = await client.GetAsync("/metrics");
        string text = await client.GetStringAsync("/custom/scrape");

        Assert.Equal(HttpStatusCode.NotFound, defaultPath.StatusCode);
        Assert.Equal("2", PrometheusText.Single(PrometheusText.Parse(text), "custom_path_total").Value);
        await app.StopAsync();
    }
}
