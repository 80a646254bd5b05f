using System.Net;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Hosting;
using Microsoft.AspNetCore.Routing;
using Microsoft.Extensions.DependencyInjection;
using ScalableMetrics.Exporter.Prometheus.Exposition;

namespace ScalableMetrics.Exporter.Tests.Protobuf;

/// <summary>The scraper serves the protobuf exposition when the registry is its only source; the endpoint uses it when the scraper prefers it and it is complete.</summary>
public class ProtobufEndpointTests
{
    private const string NativeHistogramsAccept = "application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=delimited;q=0.7,text/plain;version=0.0.4;q=0.3,*/*;q=0.2";

    [Fact]
    public async Task ScraperOfARegistryAloneServesProtobufUnderItsLock()
    {
        var registry = new MetricRegistry();
        registry.CreateExponentialHistogram("test.native", "s").Record(0.25);
        var scraper = new PrometheusScraper(registry, "scope");
        Assert.True(scraper.CanScrapeProtobuf);
        ProtoMessage family = Assert.Single(ProtoMessage.ParseDelimited(await scraper.ScrapeProtobufAsync()));
        Assert.Equal("test_native_seconds", family.String(1));
        Assert.Equal(1UL, family.Message(4).Message(7).Varint(1));
    }

    [Fact]
    public async Task EndpointWithAMeterProviderAnswersTextEvenToAProtobufScraper()
    {
        // The MeterProvider's instruments are not in the protobuf exposition yet: a protobuf scrape
        // would leave them out, so the endpoint answers the complete text exposition instead.
        WebApplicationBuilder builder = WebApplication.CreateBuilder();
        builder.WebHost.UseUrls("http://127.0.0.1:0");
        builder.Services.AddScalableMetrics(o => o.MeterName = "test.protobuf." + Guid.NewGuid().ToString("N"));
        await using WebApplication app = builder.Build();
        app.MapPrometheusScrapingEndpoint();
        await app.StartAsync();
        app.Services.GetRequiredService<MetricRegistry>().CreateCounter("test.requests").Add(1);
        using var client = new HttpClient { BaseAddress = new Uri(Assert.Single(app.Urls)) };

        using var request = new HttpRequestMessage(HttpMethod.Get, "/metrics");
        request.Headers.TryAddWithoutValidation("Accept", NativeHistogramsAccept);
        using HttpResponseMessage response = await client.SendAsync(request);
        Assert.Equal(HttpStatusCode.OK, response.StatusCode);
        Assert.False(app.Services.GetRequiredService<PrometheusScraper>().CanScrapeProtobuf);
        Assert.StartsWith("text/plain", response.Content.Headers.ContentType?.ToString(), StringComparison.Ordinal);
        Assert.Contains("test_requests_total", await response.Content.ReadAsStringAsync(), StringComparison.Ordinal);
    }
}
