using System.Net;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Hosting;
using Microsoft.AspNetCore.Routing;
using Microsoft.Extensions.DependencyInjection;
using ScalableMetrics.Exporter.Prometheus.Exposition;
using ScalableMetrics.Exporter.Prometheus.Scraping;
using ScalableMetrics.Exporter.Tests.Prometheus.Exposition;

namespace ScalableMetrics.Exporter.Tests.Prometheus.Scraping;

/// <summary><c>name[]=</c> on the scrape URL, as client_golang and client_java take it: only the families named, in every format, each filter coalesced apart.</summary>
public sealed class ScrapeNameFilterTests
{
    private const string OpenMetricsAccept = "application/openmetrics-text;version=1.0.0";
    private const string ProtobufAccept = "application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=delimited";

    [Fact]
    public async Task OnlyTheNamedFamiliesAreWrittenInTextOpenMetricsAndProtobuf()
    {
        await using WebApplication app = await StartAsync(out string listenedName);
        using var client = new HttpClient { BaseAddress = new Uri(Assert.Single(app.Urls)) };
        const string Query = "/metrics?name[]=filter_requests_total&name[]=filter_latency_seconds_bucket&name[]=listened_hits_total&name[]=no_such_family";

        string text = await GetStringAsync(client, Query, accept: null);
        Assert.Equal(["filter_latency_seconds", "filter_requests_total", "listened_hits_total"], TypeLines(text, "# TYPE ").Order(StringComparer.Ordinal));
        Assert.Contains("filter_requests_total{otel_scope_name=", text, StringComparison.Ordinal);
        Assert.DoesNotContain("target_info", text, StringComparison.Ordinal);

        string openMetrics = await GetStringAsync(client, Query, OpenMetricsAccept);
        Assert.EndsWith("# EOF\n", openMetrics, StringComparison.Ordinal);
        Assert.Equal(["filter_latency_seconds", "filter_requests", "listened_hits"], TypeLines(openMetrics, "# TYPE ").Order(StringComparer.Ordinal));

        using var request = new HttpRequestMessage(HttpMethod.Get, Query);
        request.Headers.TryAddWithoutValidation("Accept", ProtobufAccept);
        using HttpResponseMessage response = await client.SendAsync(request);
        Assert.StartsWith(PrometheusScraper.ProtobufContentType, response.Content.Headers.ContentType?.ToString(), StringComparison.Ordinal);
        string[] families = [.. ProtoMessage.ParseDelimited(await response.Content.ReadAsByteArrayAsync()).Select(f => f.String(1)).Order(StringComparer.Ordinal)];
        Assert.Equal(["filter_latency_seconds", "filter_requests_total", "listened_hits_total"], families);

        // The family name (OpenMetrics' counter name without _total) names it too, and target_info is there when asked.
        string byFamilyName = await GetStringAsync(client, "/metrics?name[]=filter_requests&name[]=target_info", accept: null);
        Assert.Equal(["filter_requests_total", "target_info"], TypeLines(byFamilyName, "# TYPE ").Order(StringComparer.Ordinal));
        _ = listenedName;
    }

    [Fact]
    public async Task AFilteredScrapeNeverServesAnotherFiltersBodyOrTheWholeScrapes()
    {
        await using WebApplication app = await StartAsync(out _);
        using var client = new HttpClient { BaseAddress = new Uri(Assert.Single(app.Urls)) };

        // Concurrent scrapes of three filters and none: each gets exactly its own families.
        string[] queries = ["/metrics?name[]=filter_requests_total", "/metrics?name[]=filter_latency_seconds_count", "/metrics", "/metrics?name[]=filter_latency_seconds&name[]=filter_requests"];
        string[][] expected = [["filter_requests_total"], ["filter_latency_seconds"], [], ["filter_latency_seconds", "filter_requests_total"]];
        for (int round = 0; round < 5; round++)
        {
            string[] bodies = await Task.WhenAll(Enumerable.Range(0, 16).Select(i => GetStringAsync(client, queries[i % queries.Length], accept: null)));
            for (int i = 0; i < bodies.Length; i++)
            {
                string[] types = [.. TypeLines(bodies[i], "# TYPE ").Order(StringComparer.Ordinal)];
                if (expected[i % queries.Length].Length == 0)
                {
                    Assert.Contains("target_info", types);
                    Assert.Contains("filter_unasked", types);
                }
                else
                {
                    Assert.Equal(expected[i % queries.Length], types);
                }
            }
        }
    }

    [Fact]
    public void FiltersOfTheSameNamesAreOneAndNoNameIsNoFilter()
    {
        Assert.Equal(ScrapeNameFilter.Of(["b", "a", "a", ""])!.Key, ScrapeNameFilter.Of(["a", "b"])!.Key);
        Assert.NotEqual(ScrapeNameFilter.Of(["a"])!.Key, ScrapeNameFilter.Of(["a", "b"])!.Key);
        Assert.Null(ScrapeNameFilter.Of([]));
        Assert.Null(ScrapeNameFilter.Of(["", null]));
        Assert.Equal(ScrapeNameFilter.MaxNames, ScrapeNameFilter.Of(Enumerable.Range(0, 1000).Select(i => "n" + i))!.Key.Split('\n').Length);
    }

    private static Task<WebApplication> StartAsync(out string listenedName)
    {
        string id = Guid.NewGuid().ToString("N");
        listenedName = "test.filter." + id;
        string meterName = listenedName;
        var meter = new System.Diagnostics.Metrics.Meter(meterName);
        WebApplicationBuilder builder = WebApplication.CreateBuilder();
        builder.WebHost.UseUrls("http://127.0.0.1:0");
        builder.Services.AddScalableMetrics(o =>
        {
            o.MeterName = "test.filter.registry." + id;
            o.ServiceName = "svc";
            o.ExportSelfMetrics = false;
            o.AddMeter(meterName);
        });
        WebApplication app = builder.Build();
        app.MapScalableMetrics();
        return Start(app, meter);
    }

    private static async Task<WebApplication> Start(WebApplication app, System.Diagnostics.Metrics.Meter meter)
    {
        await app.StartAsync();
        MetricRegistry registry = app.Services.GetRequiredService<MetricRegistry>();
        registry.CreateCounter("filter.requests").Add(3);
        registry.CreateHistogram("filter.latency", "s", boundaries: [1]).Record(0.5);
        registry.CreateGauge("filter.unasked").Set(1);
        meter.CreateCounter<long>("listened.hits").Add(2);
        app.Lifetime.ApplicationStopped.Register(meter.Dispose);
        return app;
    }

    private static async Task<string> GetStringAsync(HttpClient client, string query, string? accept)
    {
        using var request = new HttpRequestMessage(HttpMethod.Get, query);
        if (accept is not null)
        {
            request.Headers.TryAddWithoutValidation("Accept", accept);
        }

        using HttpResponseMessage response = await client.SendAsync(request);
        Assert.Equal(HttpStatusCode.OK, response.StatusCode);
        return await response.Content.ReadAsStringAsync();
    }

    private static string[] TypeLines(string text, string prefix) =>
        [.. text.Split('\n').Where(l => l.StartsWith(prefix, StringComparison.Ordinal)).Select(l => l[prefix.Length..l.IndexOf(' ', prefix.Length)])];
}
