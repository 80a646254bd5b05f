using System.Diagnostics.Metrics;
using System.Net;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Hosting;
using Microsoft.AspNetCore.Routing;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using OpenTelemetry.Metrics;

namespace ScalableMetrics.Exporter.Tests.Extensions;

/// <summary>
/// A project in the middle of a migration references both OpenTelemetry's Prometheus exporter and
/// ScalableMetrics, with both namespaces imported: <c>MapScalableMetrics</c> is ours, whatever
/// OpenTelemetry registers beside it, and OpenTelemetry's <c>MapPrometheusScrapingEndpoint</c> is
/// OpenTelemetry's.
/// </summary>
public class MapScalableMetricsTests
{
    [Fact]
    public async Task OursIsServedBesideOpenTelemetrysPrometheusEndpoint()
    {
        string id = Guid.NewGuid().ToString("N");
        string otelMeterName = "test.otel." + id;
        using var otelMeter = new Meter(otelMeterName);
        WebApplicationBuilder builder = WebApplication.CreateBuilder();
        builder.WebHost.UseUrls("http://127.0.0.1:0");
        builder.Services.AddOpenTelemetry().WithMetrics(metrics => metrics.AddMeter(otelMeterName).AddPrometheusExporter());
        builder.AddScalableMetrics(o =>
        {
            o.MeterName = "test.ours." + id;
            o.ServiceName = "ours";
        });
        await using WebApplication app = builder.Build();
        app.MapScalableMetrics();
        app.MapPrometheusScrapingEndpoint("/otel-metrics");
        await app.StartAsync();
        app.Services.GetRequiredService<MetricRegistry>().CreateCounter("ours.requests").Add(7);
        otelMeter.CreateCounter<long>("otel.requests").Add(3);
        using var client = new HttpClient { BaseAddress = new Uri(Assert.Single(app.Urls)) };

        using HttpResponseMessage ours = await client.GetAsync(new Uri("/metrics", UriKind.Relative));
        using HttpResponseMessage theirs = await client.GetAsync(new Uri("/otel-metrics", UriKind.Relative));

        Assert.Equal(HttpStatusCode.OK, ours.StatusCode);
        IReadOnlyList<PrometheusSample> samples = PrometheusText.Parse(await ours.Content.ReadAsStringAsync());
        Assert.Equal("ours", Assert.Single(samples, s => s.Name == "target_info").Labels["service_name"]);
        PrometheusSample requests = Assert.Single(samples, s => s.Name == "ours_requests_total");
        Assert.Equal(("7", "test.ours." + id), (requests.Value, requests.Labels["otel_scope_name"]));
        Assert.DoesNotContain(samples, s => s.Name == "otel_requests_total");

        // OpenTelemetry's endpoint, at its own path, serves its own meter.
        Assert.Equal(HttpStatusCode.OK, theirs.StatusCode);
        string theirBody = await theirs.Content.ReadAsStringAsync();
        Assert.Contains("otel_requests_total{", theirBody, StringComparison.Ordinal);
        Assert.DoesNotContain("ours_requests_total", theirBody, StringComparison.Ordinal);
    }

    // RFC 9110 §9.1: "All general-purpose servers MUST support the methods GET and HEAD";
    // §9.3.2: HEAD is identical to GET except that the server MUST NOT send content.
    [Fact]
    public async Task HeadIsAnsweredAsGetWithItsHeadersAndNoBody()
    {
        WebApplicationBuilder builder = WebApplication.CreateBuilder();
        builder.WebHost.UseUrls("http://127.0.0.1:0");
        builder.AddScalableMetrics(o => o.MeterName = "test.ours." + Guid.NewGuid().ToString("N"));
        await using WebApplication app = builder.Build();
        app.MapScalableMetrics();
        await app.StartAsync();
        using var client = new HttpClient { BaseAddress = new Uri(Assert.Single(app.Urls)) };

        using HttpResponseMessage get = await client.GetAsync(new Uri("/metrics", UriKind.Relative));
        using var request = new HttpRequestMessage(HttpMethod.Head, new Uri("/metrics", UriKind.Relative));
        using HttpResponseMessage head = await client.SendAsync(request);
        using HttpResponseMessage post = await client.PostAsync(new Uri("/metrics", UriKind.Relative), new StringContent(""));

        Assert.Equal(HttpStatusCode.OK, head.StatusCode);
        Assert.Equal(get.Content.Headers.ContentType, head.Content.Headers.ContentType);
        Assert.True(head.Content.Headers.ContentLength > 0, "HEAD's Content-Length is GET's, not none.");
        Assert.Empty(await head.Content.ReadAsByteArrayAsync());
        Assert.Equal(HttpStatusCode.MethodNotAllowed, post.StatusCode);
    }
}
