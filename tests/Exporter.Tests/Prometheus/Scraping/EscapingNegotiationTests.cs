using System.Net;
using System.Text;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Hosting;
using Microsoft.AspNetCore.Routing;
using Microsoft.Extensions.DependencyInjection;
using ScalableMetrics.Exporter.Prometheus.Scraping;

namespace ScalableMetrics.Exporter.Tests.Prometheus.Scraping;

/// <summary>
/// The <c>escaping</c> parameter of Prometheus' content-negotiation and escaping-schemes documents:
/// the Accept headers of their examples and of Prometheus 3, the content type that names the
/// escaping applied, and bodies that no scheme changes, so that no two series of one scrape are
/// ever stored as one.
/// </summary>
public sealed class EscapingNegotiationTests
{
    /// <summary>What Prometheus 3 sends by default (its <c>scrape_protocols</c> default, <c>escaping=allow-utf-8</c>).</summary>
    public const string Prometheus3Accept = "application/openmetrics-text;version=1.0.0;escaping=allow-utf-8;q=0.5,application/openmetrics-text;version=0.0.1;q=0.4,text/plain;version=1.0.0;escaping=allow-utf-8;q=0.3,text/plain;version=0.0.4;q=0.2,*/*;q=0.1";

    private const string OpenMetrics = "application/openmetrics-text; version=1.0.0; charset=utf-8";
    private const string Text100 = "text/plain; version=1.0.0; charset=utf-8";
    private const string Protobuf = "application/vnd.google.protobuf; proto=io.prometheus.client.MetricFamily; encoding=delimited";

    [Theory]
    // The content-negotiation document's "Default Accept Header" and "Protobuf-First Accept Header" (its catch-all written */*).
    [InlineData("application/openmetrics-text;version=1.0.0;escaping=allow-utf8;q=0.5,application/openmetrics-text;version=0.0.1;q=0.4,text/plain;version=1.0.0;escaping=allow-utf8;q=0.3,text/plain;version=0.0.4;q=0.2,*/*;q=0.1", OpenMetrics + "; escaping=underscores")]
    [InlineData("application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=delimited;q=0.5,application/openmetrics-text;version=1.0.0;escaping=allow-utf8;q=0.4,application/openmetrics-text;version=0.0.1;q=0.3,text/plain;version=1.0.0;escaping=allow-utf8;q=0.2,text/plain;version=0.0.4;q=0.1,*/*;q=0.0", Protobuf + "; escaping=underscores")]
    [InlineData(Prometheus3Accept, OpenMetrics + "; escaping=underscores")]
    // Each scheme of the escaping-schemes document, in each format that takes it.
    [InlineData("application/openmetrics-text;version=1.0.0;escaping=underscores", OpenMetrics + "; escaping=underscores")]
    [InlineData("application/openmetrics-text;version=1.0.0;escaping=dots", OpenMetrics + "; escaping=dots")]
    [InlineData("application/openmetrics-text;version=1.0.0;escaping=values", OpenMetrics + "; escaping=values")]
    [InlineData("text/plain;version=1.0.0;escaping=allow-utf-8", Text100 + "; escaping=underscores")]
    [InlineData("text/plain;version=1.0.0;escaping=dots", Text100 + "; escaping=dots")]
    [InlineData("text/plain;version=1.0.0;escaping=values", Text100 + "; escaping=values")]
    [InlineData("text/plain;version=1.0.0", Text100 + "; escaping=underscores")]
    [InlineData("application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=delimited;escaping=values", Protobuf + "; escaping=values")]
    [InlineData("application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=delimited;escaping=dots", Protobuf + "; escaping=dots")]
    // No scheme, or one the document does not define: its default, underscores.
    [InlineData("application/openmetrics-text;version=1.0.0", OpenMetrics + "; escaping=underscores")]
    [InlineData("application/openmetrics-text;version=1.0.0;escaping=\"DOTS\"", OpenMetrics + "; escaping=dots")]
    [InlineData("application/openmetrics-text;version=1.0.0;escaping=utf-16", OpenMetrics + "; escaping=underscores")]
    [InlineData("application/openmetrics-text;version=1.0.0;escaping=underscores\r\nX-Injected: 1", OpenMetrics + "; escaping=underscores")]
    // Text 0.0.4 has no names but legacy ones, and names no escaping.
    [InlineData("text/plain;version=0.0.4;escaping=dots", PrometheusScraper.ContentType)]
    [InlineData(null, PrometheusScraper.ContentType)]
    public void TheContentTypeNamesTheEscapingApplied(string? accept, string contentType)
    {
        Assert.Equal(contentType, ScrapeNegotiation.Negotiate(accept).ContentType);
    }

    [Fact]
    public async Task EverySchemeGetsTheSameSeriesAndPrometheus3sHeaderIsAnswered()
    {
        WebApplicationBuilder builder = WebApplication.CreateBuilder();
        builder.WebHost.UseUrls("http://127.0.0.1:0");
        builder.Services.AddScalableMetrics(o => o.ExportSelfMetrics = false);
        await using WebApplication app = builder.Build();
        app.MapScalableMetrics();
        await app.StartAsync();
        MetricRegistry registry = app.Services.GetRequiredService<MetricRegistry>();

        // The escaping-schemes document's examples as instrument and tag names.
        registry.CreateCounter("metric.name/with/slashes").Add(3, new KeyValuePair<string, object?>("http.route", "/a"));
        registry.CreateCounter("metric.name.with.dots").Add(5);
        registry.CreateCounter("metric.name").Add(7, new KeyValuePair<string, object?>("a.b", "x"));
        using var client = new HttpClient { BaseAddress = new Uri(Assert.Single(app.Urls)) };

        (string prometheus3Type, byte[] prometheus3) = await Scrape(client, Prometheus3Accept);
        Assert.Equal(OpenMetrics + "; escaping=underscores", prometheus3Type);
        string text = Encoding.UTF8.GetString(prometheus3);
        ExposedSeries.AssertNoneRepeated(PrometheusExpositionFormat.OpenMetrics, prometheus3);
        Assert.Contains("\nmetric_name_with_slashes_total{otel_scope_name=\"ScalableMetrics\",http_route=\"/a\"} 3\n", text, StringComparison.Ordinal);
        Assert.Contains("\nmetric_name_with_dots_total{otel_scope_name=\"ScalableMetrics\"} 5\n", text, StringComparison.Ordinal);
        Assert.Contains("\nmetric_name_total{otel_scope_name=\"ScalableMetrics\",a_b=\"x\"} 7\n", text, StringComparison.Ordinal);

        // Every scheme leaves those legacy names as they are: the same bytes, format by format.
        foreach (string scheme in (string[])["allow-utf-8", "underscores", "dots", "values"])
        {
            (string openMetricsType, byte[] openMetrics) = await Scrape(client, "application/openmetrics-text;version=1.0.0;escaping=" + scheme);
            Assert.StartsWith(OpenMetrics + "; escaping=", openMetricsType, StringComparison.Ordinal);
            Assert.Equal(text, Encoding.UTF8.GetString(openMetrics));

            (string textType, byte[] text100) = await Scrape(client, "text/plain;version=1.0.0;escaping=" + scheme);
            Assert.StartsWith(Text100 + "; escaping=", textType, StringComparison.Ordinal);
            Assert.Equal(await client.GetByteArrayAsync(new Uri("/metrics", UriKind.Relative)), text100);
            ExposedSeries.AssertNoneRepeated(PrometheusExpositionFormat.Text, text100);
        }
    }

    private static async Task<(string ContentType, byte[] Body)> Scrape(HttpClient client, string accept)
    {
        using var request = new HttpRequestMessage(HttpMethod.Get, "/metrics");
        request.Headers.TryAddWithoutValidation("Accept", accept);
        using HttpResponseMessage response = await client.SendAsync(request);
        Assert.Equal(HttpStatusCode.OK, response.StatusCode);
        return (response.Content.Headers.ContentType!.ToString(), await response.Content.ReadAsByteArrayAsync());
    }
}
