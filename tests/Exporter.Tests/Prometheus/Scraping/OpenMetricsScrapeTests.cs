using System.Diagnostics.Metrics;
using System.Globalization;
using System.IO.Compression;
using System.Net.Http.Headers;
using System.Text;
using System.Text.RegularExpressions;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Hosting;
using Microsoft.AspNetCore.Routing;
using Microsoft.Extensions.DependencyInjection;

namespace ScalableMetrics.Exporter.Tests.Prometheus.Scraping;

/// <summary>
/// Whole scrapes in OpenMetrics 1.0: the registry's families and the <c>MeterProvider</c>'s, with
/// <c>_created</c>, <c># UNIT</c> and <c># EOF</c>; <c>target_info</c> from the options (OpenTelemetry's
/// Prometheus compatibility specification); the endpoint's content negotiation and gzip.
/// </summary>
public sealed partial class OpenMetricsScrapeTests
{
    private const string PrometheusAccept = "application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1";

    [Fact]
    public async Task AHistogramWhoseSumIsNotCounterLikeHasNoSumNorCountInOpenMetricsButKeepsThemInText()
    {
        // OpenMetrics 1.0: _sum is counter-like, a histogram with negative buckets has none, and
        // _count is written if and only if _sum is; the +Inf bucket still carries the count.
        var registry = new MetricRegistry();
        registry.CreateHistogram("negative.bounds", null, null, [-1, 0, 1]).Record(0.5);
        registry.CreateHistogram("negative.sum", null, null, [0, 1]).Record(-3);
        registry.CreateHistogram("infinite.sum", null, null, [0, 1]).Record(double.PositiveInfinity);
        registry.CreateHistogram("ordinary", null, null, [0, 1]).Record(0.5);
        var scraper = new PrometheusScraper(registry, "m");

        string openMetrics = Encoding.UTF8.GetString(await scraper.ScrapeAsync(PrometheusExpositionFormat.OpenMetrics));
        string text = Encoding.UTF8.GetString(await scraper.ScrapeAsync(PrometheusExpositionFormat.Text));

        foreach (string family in (string[])["negative_bounds", "negative_sum", "infinite_sum"])
        {
            Assert.Contains($"\n{family}_bucket{{otel_scope_name=\"m\",le=\"+Inf\"}} 1\n", openMetrics, StringComparison.Ordinal);
            Assert.DoesNotContain($"\n{family}_sum", openMetrics, StringComparison.Ordinal);
            Assert.DoesNotContain($"\n{family}_count", openMetrics, StringComparison.Ordinal);
            Assert.Contains($"\n{family}_sum", text, StringComparison.Ordinal);
            Assert.Contains($"\n{family}_count", text, StringComparison.Ordinal);
        }

        Assert.Contains("\nordinary_count{otel_scope_name=\"m\"} 1\n", openMetrics, StringComparison.Ordinal);
        Assert.Contains("\nordinary_sum{otel_scope_name=\"m\"} 0.5\n", openMetrics, StringComparison.Ordinal);
    }

    [Fact]
    public async Task TheRegistryScrapesInOpenmetricsWithCreatedWhenAskedUnitsAndEof()
    {
        var registry = new MetricRegistry();
        DateTimeOffset before = DateTimeOffset.UtcNow;
        PartitionedCounter counter = registry.CreateCounter("requests", "{request}", "Requests served.");
        PartitionedHistogram histogram = registry.CreateHistogram("latency", "s", null, [0.5, 1]);
        OperationData operation = registry.CreateOperationData("work");
        Gauge gauge = registry.CreateGauge("queue.depth");
        DateTimeOffset after = DateTimeOffset.UtcNow;
        counter.Add(3, new KeyValuePair<string, object?>("code", "200"));
        histogram.Record(1.0);
        operation.Bind().Record(TimeSpan.FromSeconds(2));
        gauge.Set(7);
        var scraper = new PrometheusScraper(registry, "m") { EnableOpenMetricsTextCreatedSamples = true };

        string text = Encoding.UTF8.GetString(await scraper.ScrapeAsync(PrometheusExpositionFormat.OpenMetrics));

        AssertOpenMetrics(text);
        Assert.Contains("# TYPE requests counter\n# HELP requests Requests served.\nrequests_total{otel_scope_name=\"m\",code=\"200\"} 3\nrequests_created{otel_scope_name=\"m\",code=\"200\"} ", text);
        Assert.Contains("# TYPE latency_seconds histogram\n# UNIT latency_seconds seconds\nlatency_seconds_bucket{otel_scope_name=\"m\",le=\"0.5\"} 0\nlatency_seconds_bucket{otel_scope_name=\"m\",le=\"1.0\"} 1\nlatency_seconds_bucket{otel_scope_name=\"m\",le=\"+Inf\"} 1\nlatency_seconds_count{otel_scope_name=\"m\"} 1\nlatency_seconds_sum{otel_scope_name=\"m\"} 1.0\nlatency_seconds_created{otel_scope_name=\"m\"} ", text);
        Assert.Contains("# TYPE work_seconds summary\n# UNIT work_seconds seconds\nwork_seconds_count{otel_scope_name=\"m\"} 1\nwork_seconds_sum{otel_scope_name=\"m\"} 2.0\nwork_seconds_created{otel_scope_name=\"m\"} ", text);
        Assert.Contains("# TYPE queue_depth gauge\nqueue_depth{otel_scope_name=\"m\"} 7\n", text);
        Assert.DoesNotContain("queue_depth_created", text);

        // _created is when the instrument was made, in seconds since the epoch (milliseconds kept).
        foreach (string name in (string[])["requests_created", "latency_seconds_created", "work_seconds_created"])
        {
            double created = double.Parse(Regex.Match(text, $@"^{name}\{{[^}}]*\}} (\S+)$", RegexOptions.Multiline).Groups[1].Value, CultureInfo.InvariantCulture);
            Assert.InRange(created, Math.Floor(before.ToUnixTimeMilliseconds() / 1000.0), after.ToUnixTimeMilliseconds() / 1000.0);
            Assert.Contains('.', Regex.Match(text, $@"^{name}\{{[^}}]*\}} (\S+)$", RegexOptions.Multiline).Groups[1].Value);
        }

        // The same scraper answers text 0.0.4 afterwards, unchanged.
        string plain = Encoding.UTF8.GetString(await scraper.ScrapeAsync());
        Assert.Contains("# HELP requests_total Requests served.\n# TYPE requests_total counter\nrequests_total{otel_scope_name=\"m\",code=\"200\"} 3\n", plain);
        Assert.DoesNotContain("_created", plain);
        Assert.DoesNotContain("# EOF", plain);
        Assert.DoesNotContain("# UNIT", plain);
        _ = PrometheusText.Parse(plain);
    }

    [Fact]
    public async Task NoLabelNameBeginsWithAnUnderscoreInOpenMetrics()
    {
        // OpenMetrics 1.0, Data Model, Label: "Label names beginning with underscores are RESERVED
        // and MUST NOT be used unless specified by this standard." The registry takes these keys
        // (it refuses only a '__' prefix), and each sanitizes to a name beginning with '_'.
        var registry = new MetricRegistry();
        PartitionedCounter counter = registry.CreateCounter("jobs");
        counter.Add(1, new KeyValuePair<string, object?>("_internal", "a"));
        counter.Add(2, new KeyValuePair<string, object?>(".net.version", "10"));
        counter.Add(3, new KeyValuePair<string, object?>("é", "b"));
        using var scraper = new PrometheusScraper(registry, "m");

        string text = Encoding.UTF8.GetString(await scraper.ScrapeAsync(PrometheusExpositionFormat.OpenMetrics));

        IReadOnlyList<PrometheusSample> samples = PrometheusText.ParseOpenMetrics(text);
        Assert.Equal(6, samples.Where(s => s.Name == "jobs_total").Sum(s => s.NumericValue));
        Assert.All(samples.SelectMany(s => s.Labels.Keys), name => Assert.False(name.StartsWith('_'), $"Label name '{name}' begins with an underscore:\n{text}"));
    }

    [Fact]
    public async Task AnUndefinedFormatIsRefusedAtTheBoundary()
    {
        var scraper = new PrometheusScraper(new MetricRegistry(), "m");

        ArgumentOutOfRangeException e = await Assert.ThrowsAsync<ArgumentOutOfRangeException>(() => scraper.ScrapeAsync((PrometheusExpositionFormat)7));

        Assert.Equal("format", e.ParamName);
    }

    [Fact]
    public async Task TheEndpointNegotiatesOpenmetricsAndGzipAndWritesTargetInfoAndTheMeterProvidersFamilies()
    {
        string otherMeterName = "test.om.other." + Guid.NewGuid().ToString("N");
        using var otherMeter = new Meter(otherMeterName);
        string meterName = "test.om." + Guid.NewGuid().ToString("N");
        WebApplicationBuilder builder = WebApplication.CreateBuilder();
        builder.WebHost.UseUrls("http://127.0.0.1:0");
        builder.Services.AddScalableMetrics(o =>
        {
            o.MeterName = meterName;
            o.ServiceName = "checkout";
            o.ServiceInstanceId = "instance-1";
            o.ServiceVersion = "1.2.3";
            o.ConfigureMeterProvider(b => b.AddMeter(otherMeterName));

            // Two collections are compared byte for byte: the self-metrics' scrape duration would differ.
            o.ExportSelfMetrics = false;
            o.EnableOpenMetricsTextCreatedSamples = true;
        });
        await using WebApplication app = builder.Build();
        app.MapScalableMetrics();
        await app.StartAsync();
        app.Services.GetRequiredService<MetricRegistry>().CreateCounter("orders").Add(4);
        otherMeter.CreateCounter<long>("other.calls", "s").Add(5);
        otherMeter.CreateHistogram<double>("other.size", "By").Record(3);
        using var client = new HttpClient { BaseAddress = new Uri(Assert.Single(app.Urls)) };

        using var request = new HttpRequestMessage(HttpMethod.Get, "/metrics");
        request.Headers.TryAddWithoutValidation("Accept", PrometheusAccept);
        request.Headers.AcceptEncoding.Add(new StringWithQualityHeaderValue("gzip"));
        using HttpResponseMessage response = await client.SendAsync(request);

        Assert.Equal(System.Net.HttpStatusCode.OK, response.StatusCode);
        Assert.Equal("application/openmetrics-text; version=1.0.0; charset=utf-8; escaping=underscores", response.Content.Headers.ContentType!.ToString());
        Assert.Equal(["gzip"], response.Content.Headers.ContentEncoding);
        string text = await Gunzip(response);
        AssertOpenMetrics(text);
        Assert.StartsWith("# TYPE target info\n# HELP target Target metadata\ntarget_info{", text);
        Assert.Matches("(?m)^target_info\\{[^}]*service_instance_id=\"instance-1\",service_name=\"checkout\",service_version=\"1.2.3\"[^}]*\\} 1$", text);
        Assert.Contains($"# TYPE orders counter\norders_total{{otel_scope_name=\"{meterName}\"}} 4\norders_created{{otel_scope_name=\"{meterName}\"}} ", text);
        Assert.Contains($"# TYPE other_calls_seconds counter\n# UNIT other_calls_seconds seconds\nother_calls_seconds_total{{otel_scope_name=\"{otherMeterName}\"}} 5\nother_calls_seconds_created{{otel_scope_name=\"{otherMeterName}\"}} ", text);
        Assert.Contains("# TYPE other_size_bytes histogram\n# UNIT other_size_bytes bytes\n", text);
        Assert.Contains($"other_size_bytes_count{{otel_scope_name=\"{otherMeterName}\"}} 1\nother_size_bytes_sum{{otel_scope_name=\"{otherMeterName}\"}} 3.0\nother_size_bytes_created{{otel_scope_name=\"{otherMeterName}\"}} ", text);

        // No Accept and no Accept-Encoding: text 0.0.4, uncompressed, target_info a gauge.
        using HttpResponseMessage plain = await client.GetAsync("/metrics");
        Assert.Equal("text/plain; version=0.0.4; charset=utf-8", plain.Content.Headers.ContentType!.ToString());
        Assert.Empty(plain.Content.Headers.ContentEncoding);
        string plainText = await plain.Content.ReadAsStringAsync();
        Assert.StartsWith("# HELP target_info Target metadata\n# TYPE target_info gauge\ntarget_info{", plainText);
        Assert.Contains($"other_calls_seconds_total{{otel_scope_name=\"{otherMeterName}\"}} 5\n", plainText);
        Assert.DoesNotContain("# EOF", plainText);
        _ = PrometheusText.Parse(plainText);

        // Text 0.0.4 compressed: the same body once decompressed.
        using var gzipped = new HttpRequestMessage(HttpMethod.Get, "/metrics");
        gzipped.Headers.AcceptEncoding.Add(new StringWithQualityHeaderValue("gzip"));
        using HttpResponseMessage compressed = await client.SendAsync(gzipped);
        Assert.Equal(["gzip"], compressed.Content.Headers.ContentEncoding);

        // Compressed whole before a byte is sent: a Content-Length, not chunks.
        Assert.NotEqual(true, compressed.Headers.TransferEncodingChunked);
        Assert.True(compressed.Content.Headers.ContentLength > 0);
        Assert.Equal(plainText, await Gunzip(compressed));
        await app.StopAsync();
    }

    private static async Task<string> Gunzip(HttpResponseMessage response)
    {
        await using Stream body = await response.Content.ReadAsStreamAsync();
        await using var gzip = new GZipStream(body, CompressionMode.Decompress);
        using var reader = new StreamReader(gzip, Encoding.UTF8);
        return await reader.ReadToEndAsync();
    }

    // OpenMetrics 1.0, "Counter": a counter's MetricPoint has a Total value, written as the sample
    // named after the family with the suffix "_total". A counter instrument named "total" is written
    // as "# TYPE total counter" with a sample "total": no "_total" after the family name.
    [Fact]
    public async Task ACounterNamedTotalIsWrittenWithItsTotalSampleAfterTheFamilyName()
    {
        var registry = new MetricRegistry();
        registry.CreateCounter("total").Add(3);
        var scraper = new PrometheusScraper(registry, "m");

        string text = Encoding.UTF8.GetString(await scraper.ScrapeAsync(PrometheusExpositionFormat.OpenMetrics));

        string family = Assert.Single(text.Split('\n'), static line => line.EndsWith(" counter", StringComparison.Ordinal))["# TYPE ".Length..^" counter".Length];
        string sample = Assert.Single(text.Split('\n'), static line => line.Length > 0 && !line.StartsWith('#') && !line.StartsWith("target_info", StringComparison.Ordinal));
        Assert.StartsWith(family + "_total{", sample);
    }

    /// <summary>Every line is metadata (<c>TYPE</c>, <c>UNIT</c>, <c>HELP</c>) or a sample, the
    /// exposition ends with <c># EOF</c>, and no counter family is named with <c>_total</c>.</summary>
    internal static void AssertOpenMetrics(string text)
    {
        Assert.EndsWith("\n# EOF\n", text);
        string[] lines = text[..^"# EOF\n".Length].TrimEnd('\n').Split('\n');
        foreach (string line in lines)
        {
            Assert.Matches(OpenMetricsLine(), line);
            Assert.False(line.StartsWith("# TYPE ", StringComparison.Ordinal) && line.EndsWith("_total counter", StringComparison.Ordinal), line);
        }

        ExposedSeries.AssertNoneRepeated(PrometheusExpositionFormat.OpenMetrics, Encoding.UTF8.GetBytes(text));
    }

    [GeneratedRegex("""^(# (TYPE|UNIT|HELP) [a-zA-Z_:][a-zA-Z0-9_:]* .*|[a-zA-Z_:][a-zA-Z0-9_:]*(\{([a-zA-Z_][a-zA-Z0-9_]*="([^"\\\n]|\\[\\"n])*",?)*\})? (NaN|[+-]Inf|-?[0-9]+(\.[0-9]+)?(e[+-][0-9]+)?))$""")]
    private static partial Regex OpenMetricsLine();
}
