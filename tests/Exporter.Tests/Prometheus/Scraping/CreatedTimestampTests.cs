using System.Diagnostics;
using System.Diagnostics.Metrics;
using System.Text;
using System.Text.RegularExpressions;
using Google.Protobuf.WellKnownTypes;
using Io.Prometheus.Client;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Hosting;
using Microsoft.AspNetCore.Routing;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;

namespace ScalableMetrics.Exporter.Tests.Prometheus.Scraping;

/// <summary>
/// A series' start in each format: OpenMetrics' <c>_created</c> samples only when asked for
/// (<see cref="PrometheusScraper.EnableOpenMetricsTextCreatedSamples"/>), and protobuf's
/// <c>created_timestamp</c> of a counter, histogram or summary whose start is known, decoded with
/// the classes generated from prometheus/client_model's own <c>metrics.proto</c>.
/// </summary>
public sealed partial class CreatedTimestampTests
{
    // Sub-second parts, so that a start rounded to the second, or nanos written as ticks, shows.
    private static readonly DateTimeOffset s_counterStart = DateTimeOffset.FromUnixTimeMilliseconds(1_600_000_000_123).AddTicks(4567);
    private static readonly DateTimeOffset s_histogramStart = DateTimeOffset.FromUnixTimeMilliseconds(1_600_000_100_250);
    private static readonly DateTimeOffset s_summaryStart = DateTimeOffset.FromUnixTimeMilliseconds(1_600_000_200_999);

    [Fact]
    public async Task OpenMetricsWritesNoCreatedSamplesByDefaultAndTheSameValuesAsWithThem()
    {
        MetricRegistry registry = Registry();
        using var byDefault = new PrometheusScraper(registry, "m");
        using var optedIn = new PrometheusScraper(registry, "m") { EnableOpenMetricsTextCreatedSamples = true };

        string plain = Encoding.UTF8.GetString(await byDefault.ScrapeAsync(PrometheusExpositionFormat.OpenMetrics));
        string withCreated = Encoding.UTF8.GetString(await optedIn.ScrapeAsync(PrometheusExpositionFormat.OpenMetrics));

        Assert.DoesNotContain("_created", plain, StringComparison.Ordinal);
        Assert.Equal(3, CreatedLine().Matches(withCreated).Count);

        // What Prometheus reads of every other series is the same, byte for byte.
        Assert.Equal(plain, CreatedLine().Replace(withCreated, string.Empty));
        Assert.Contains("requests_total{otel_scope_name=\"m\",code=\"200\"} 3\n", plain, StringComparison.Ordinal);
    }

    [Fact]
    public async Task ProtobufCarriesEachKnownStartAsCreatedTimestamp()
    {
        using var scraper = new PrometheusScraper(Registry(), "m");

        Dictionary<string, MetricFamily> families = Decode(await scraper.ScrapeAsync(PrometheusExpositionFormat.Protobuf));

        Metric counter = Assert.Single(families["requests_total"].Metric);
        Assert.Equal(3, counter.Counter.Value);
        Assert.Equal(Timestamp.FromDateTimeOffset(s_counterStart), counter.Counter.CreatedTimestamp);

        Metric histogram = Assert.Single(families["latency_seconds"].Metric);
        Assert.Equal(2UL, histogram.Histogram.SampleCount);
        Assert.Equal(Timestamp.FromDateTimeOffset(s_histogramStart), histogram.Histogram.CreatedTimestamp);

        Metric summary = Assert.Single(families["work_seconds"].Metric);
        Assert.Equal(1UL, summary.Summary.SampleCount);
        Assert.Equal(Timestamp.FromDateTimeOffset(s_summaryStart), summary.Summary.CreatedTimestamp);

        // An observable counter's start is not known: its counter has none; a gauge has no such field.
        Assert.Null(Assert.Single(families["polled_total"].Metric).Counter.CreatedTimestamp);
        Assert.Equal(7, Assert.Single(families["queue_depth"].Metric).Gauge.Value);
    }

    [Fact]
    public async Task AStartBeforeTheEpochHasNanosThatCountForward()
    {
        // timestamp.proto: nanos is 0 to 999,999,999 and counts forward in time, so a quarter of a
        // second before the epoch is seconds -1 and nanos 750,000,000, not 0 and -250,000,000.
        var registry = new MetricRegistry();
        PartitionedCounter counter = registry.CreateCounter("requests");
        counter.CreatedAt = DateTimeOffset.UnixEpoch.AddMilliseconds(-250);
        counter.Add(1);
        using var scraper = new PrometheusScraper(registry, "m");

        Dictionary<string, MetricFamily> families = Decode(await scraper.ScrapeAsync(PrometheusExpositionFormat.Protobuf));

        Timestamp created = Assert.Single(families["requests_total"].Metric).Counter.CreatedTimestamp;
        Assert.Equal(-1, created.Seconds);
        Assert.Equal(750_000_000, created.Nanos);
        Assert.Equal(counter.CreatedAt, created.ToDateTimeOffset());
    }

    [Fact]
    public async Task ACounterWithAnExemplarCarriesBothAndEverySeriesItsOwnValue()
    {
        var registry = new MetricRegistry(new MetricRegistryOptions { ExemplarFilter = ExemplarFilter.TraceBased });
        PartitionedDoubleCounter bytes = registry.CreateDoubleCounter("bytes", "By");
        bytes.CreatedAt = s_counterStart;
        using (Activity activity = new Activity("t").SetIdFormat(ActivityIdFormat.W3C))
        {
            activity.ActivityTraceFlags = ActivityTraceFlags.Recorded;
            activity.Start();
            bytes.Add(2.5, new KeyValuePair<string, object?>("dir", "in"));
        }

        bytes.Add(4, new KeyValuePair<string, object?>("dir", "out"));
        using var scraper = new PrometheusScraper(registry, "m");

        MetricFamily family = Decode(await scraper.ScrapeAsync(PrometheusExpositionFormat.Protobuf))["bytes_total"];

        Assert.Equal([2.5, 4], family.Metric.OrderBy(m => m.Counter.Value).Select(m => m.Counter.Value));
        Assert.All(family.Metric, m => Assert.Equal(Timestamp.FromDateTimeOffset(s_counterStart), m.Counter.CreatedTimestamp));
        Assert.Equal(2.5, Assert.Single(family.Metric, m => m.Counter.Exemplar is not null).Counter.Exemplar.Value);
    }

    [Theory]
    [InlineData(null, false)]
    [InlineData("true", true)]
    [InlineData("false", false)]
    public async Task TheConfigurationKeyTurnsCreatedSamplesOn(string? value, bool expected)
    {
        WebApplicationBuilder builder = WebApplication.CreateBuilder();
        builder.WebHost.UseUrls("http://127.0.0.1:0");
        if (value is not null)
        {
            builder.Configuration["ScalableMetrics:EnableOpenMetricsTextCreatedSamples"] = value;
        }

        builder.AddScalableMetrics(o => o.ExportSelfMetrics = false);
        await using WebApplication app = builder.Build();
        app.MapScalableMetrics();
        await app.StartAsync();
        app.Services.GetRequiredService<MetricRegistry>().CreateCounter("orders").Add(4);
        using var client = new HttpClient { BaseAddress = new Uri(Assert.Single(app.Urls)) };
        using var request = new HttpRequestMessage(HttpMethod.Get, "/metrics");
        request.Headers.TryAddWithoutValidation("Accept", EscapingNegotiationTests.Prometheus3Accept);

        using HttpResponseMessage response = await client.SendAsync(request);
        string text = await response.Content.ReadAsStringAsync();

        Assert.Contains("\norders_total{otel_scope_name=\"ScalableMetrics\"} 4\n", text, StringComparison.Ordinal);
        Assert.Equal(expected, text.Contains("\norders_created{", StringComparison.Ordinal));
        Assert.Equal(expected, app.Services.GetRequiredService<PrometheusScraper>().EnableOpenMetricsTextCreatedSamples);
    }

    private static MetricRegistry Registry()
    {
        var registry = new MetricRegistry();
        PartitionedCounter counter = registry.CreateCounter("requests", "{request}", "Requests served.");
        PartitionedHistogram histogram = registry.CreateHistogram("latency", "s", null, [0.5, 1]);
        OperationData operation = registry.CreateOperationData("work");
        counter.CreatedAt = s_counterStart;
        histogram.CreatedAt = s_histogramStart;
        operation.CreatedAt = s_summaryStart;
        registry.CreateGauge("queue.depth").Set(7);
        registry.CreateObservableCounter("polled", () => [new Measurement<long>(11)]);
        counter.Add(3, new KeyValuePair<string, object?>("code", "200"));
        histogram.Record(1.0);
        histogram.Record(0.25);
        operation.Bind().Record(TimeSpan.FromSeconds(2));
        return registry;
    }

    private static Dictionary<string, MetricFamily> Decode(byte[] body)
    {
        var families = new Dictionary<string, MetricFamily>(StringComparer.Ordinal);
        using var stream = new MemoryStream(body);
        while (stream.Position < stream.Length)
        {
            MetricFamily family = MetricFamily.Parser.ParseDelimitedFrom(stream);
            families.Add(family.Name, family);
        }

        return families;
    }

    [GeneratedRegex(@"^[^ \n]*_created\{[^\n]*\} [^\n]*\n", RegexOptions.Multiline)]
    private static partial Regex CreatedLine();
}
