using System.Diagnostics.Metrics;
using System.Net;
using System.Text;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Hosting;
using Microsoft.AspNetCore.Routing;
using Microsoft.Extensions.DependencyInjection;
using OpenTelemetry.Metrics;
using ScalableMetrics.Exporter.Tests.Prometheus.Exposition;

namespace ScalableMetrics.Exporter.Tests.Prometheus.Scraping;

/// <summary>
/// A protobuf scrape through the endpoint is as complete as a text one: the registry's
/// instruments, the listened meters' and the <c>MeterProvider</c>'s, exponential histograms of
/// both as native histograms, under the names the text scrape writes them.
/// </summary>
public class ProtobufEndpointTests
{
    /// <summary>What Prometheus 2.42 started with <c>--enable-feature=native-histograms</c> sends (scrape/scrape.go).</summary>
    private const string NativeHistogramsAccept = "application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=delimited;q=0.7,text/plain;version=0.0.4;q=0.3,*/*;q=0.2";

    [Fact]
    public async Task EverySourceIsInTheProtobufScrapeAndExponentialHistogramsAreNative()
    {
        string id = Guid.NewGuid().ToString("N");
        string listenedName = "test.listened." + id;
        string otherName = "test.other." + id;
        using var listenedMeter = new Meter(listenedName);
        using var otherMeter = new Meter(otherName);
        WebApplicationBuilder builder = WebApplication.CreateBuilder();
        builder.WebHost.UseUrls("http://127.0.0.1:0");
        builder.Services.AddScalableMetrics(o =>
        {
            o.MeterName = "test.protobuf." + id;
            o.ServiceName = "svc";
            o.AddMeter(listenedName);
            o.ConfigureMeterProvider(b => b
                .AddMeter(otherName)
                .AddView("other.latency", new Base2ExponentialBucketHistogramConfiguration { MaxScale = 3 }));
        });
        await using WebApplication app = builder.Build();
        app.MapScalableMetrics();
        await app.StartAsync();
        MetricRegistry registry = app.Services.GetRequiredService<MetricRegistry>();
        registry.CreateExponentialHistogram("registry.latency", "s", scale: 0, minValue: 1, maxValue: 1024).Record(1.5);
        listenedMeter.CreateCounter<long>("listened.requests").Add(2);
        otherMeter.CreateCounter<long>("other.requests").Add(3);
        otherMeter.CreateHistogram<double>("other.latency").Record(3.0);
        using var client = new HttpClient { BaseAddress = new Uri(Assert.Single(app.Urls)) };

        using var request = new HttpRequestMessage(HttpMethod.Get, "/metrics");
        request.Headers.TryAddWithoutValidation("Accept", NativeHistogramsAccept);
        using HttpResponseMessage response = await client.SendAsync(request);

        Assert.Equal(HttpStatusCode.OK, response.StatusCode);
        Assert.Equal(PrometheusScraper.ProtobufContentType + "; escaping=underscores", response.Content.Headers.ContentType?.ToString());
        Dictionary<string, ProtoMessage> families = ProtoMessage.ParseDelimited(await response.Content.ReadAsByteArrayAsync()).ToDictionary(f => f.String(1));
        Assert.Equal("svc", Label(families["target_info"].Message(4), "service_name"));
        Assert.Equal(2, families["listened_requests_total"].Message(4).Message(3).Double(1));
        Assert.Equal(listenedName, Label(families["listened_requests_total"].Message(4), "otel_scope_name"));
        Assert.Equal(3, families["other_requests_total"].Message(4).Message(3).Double(1));

        // 1.5 at scale 0 is in (1, 2]: Prometheus' bucket 1. 3.0 at scale 3 is in (2^(12/8), 2^(13/8)]: bucket 13.
        ProtoMessage registryHistogram = families["registry_latency_seconds"].Message(4).Message(7);
        Assert.Equal((0L, 1UL), (ProtoMessage.ZigZag(registryHistogram.Varint(5)), registryHistogram.Varint(1)));
        Assert.Equal(1L, ProtoMessage.ZigZag(Assert.Single(registryHistogram.Messages(12)).Varint(1)));
        ProtoMessage otherHistogram = families["other_latency"].Message(4).Message(7);
        Assert.Equal((3L, 1UL, 3.0), (ProtoMessage.ZigZag(otherHistogram.Varint(5)), otherHistogram.Varint(1), otherHistogram.Double(2)));
        Assert.Equal(13L, ProtoMessage.ZigZag(Assert.Single(otherHistogram.Messages(12)).Varint(1)));

        // The same scrape in text: every family, the exponential histograms as classic buckets.
        string text = await client.GetStringAsync(new Uri("/metrics", UriKind.Relative));
        Assert.Contains("registry_latency_seconds_bucket{otel_scope_name=\"test.protobuf." + id + "\",le=\"2\"} 1\n", text, StringComparison.Ordinal);
        Assert.Contains("other_latency_bucket{otel_scope_name=\"" + otherName + "\",le=\"+Inf\"} 1\n", text, StringComparison.Ordinal);
        foreach (string family in families.Keys)
        {
            Assert.Contains("# TYPE " + family + " ", text, StringComparison.Ordinal);
        }
    }

    [Theory]
    [InlineData(NativeHistogramsAccept, PrometheusExpositionFormat.Protobuf)]
    [InlineData("application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=text", PrometheusExpositionFormat.Text)]
    [InlineData("application/vnd.google.protobuf;encoding=delimited", PrometheusExpositionFormat.Text)]
    [InlineData("application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=delimited;q=0.4,application/openmetrics-text;version=1.0.0;q=0.5", PrometheusExpositionFormat.OpenMetrics)]
    public void ProtobufIsServedOnlyWhenAskedForAsDelimitedMetricFamilies(string accept, PrometheusExpositionFormat expected) =>
        Assert.Equal(expected, ScalableMetrics.Exporter.Prometheus.Scraping.ScrapeNegotiation.Format(accept).Id);

    private static string Label(ProtoMessage metric, string name) =>
        metric.Messages(1).Single(label => label.String(1) == name).String(2);
}
