using System.Diagnostics;
using System.Diagnostics.Metrics;
using System.Globalization;
using System.Text;
using System.Text.RegularExpressions;
using Microsoft.Extensions.Logging.Abstractions;
using ScalableMetrics.Exporter.Listening;

namespace ScalableMetrics.Exporter.Tests.Prometheus.Exposition;

/// <summary>
/// Exemplars in the exposition: OpenMetrics 1.0 writes one after a counter's <c>_total</c> sample
/// and after a histogram's <c>_bucket</c> sample of the bucket it fell in
/// (<c> # {trace_id="…",span_id="…"} value timestamp</c>, the specification's exemplar syntax);
/// protobuf in <c>Counter.exemplar</c> and <c>Bucket.exemplar</c> (a +Inf bucket added to carry
/// one, as client_golang does); the text format 0.0.4, which has none, never.
/// </summary>
public sealed class ExemplarExpositionTests
{
    [Fact]
    public async Task OpenMetricsWritesTheCounterAndBucketExemplarsOfARecordedActivity()
    {
        (MetricRegistry registry, Activity activity, double before, double after) = RecordUnderActivity(0.7);
        using var scraper = new PrometheusScraper(registry, "m");

        string text = Encoding.UTF8.GetString(await scraper.ScrapeAsync(PrometheusExpositionFormat.OpenMetrics));

        string ids = $"trace_id=\"{activity.TraceId.ToHexString()}\",span_id=\"{activity.SpanId.ToHexString()}\"";
        Match counter = Regex.Match(text, "^requests_total\\{otel_scope_name=\"m\"\\} 3 # \\{" + Regex.Escape(ids) + "\\} 3\\.0 ([0-9.]+)$", RegexOptions.Multiline);
        Assert.True(counter.Success, text);
        Assert.InRange(double.Parse(counter.Groups[1].Value, CultureInfo.InvariantCulture), before, after);
        Assert.Matches("^latency_seconds_bucket\\{otel_scope_name=\"m\",le=\"1\\.0\"\\} 1 # \\{" + Regex.Escape(ids) + "\\} 0\\.7 [0-9.]+$", Line(text, "latency_seconds_bucket{otel_scope_name=\"m\",le=\"1.0\"}"));
        Assert.Equal("latency_seconds_bucket{otel_scope_name=\"m\",le=\"0.5\"} 0", Line(text, "latency_seconds_bucket{otel_scope_name=\"m\",le=\"0.5\"}"));
        Assert.Equal("latency_seconds_bucket{otel_scope_name=\"m\",le=\"+Inf\"} 1", Line(text, "latency_seconds_bucket{otel_scope_name=\"m\",le=\"+Inf\"}"));
    }

    [Fact]
    public async Task AnAlwaysOnExemplarOutsideATraceHasNoLabelsInOpenMetricsAndProtobuf()
    {
        Assert.Null(Activity.Current);
        var registry = new MetricRegistry(new MetricRegistryOptions { ExemplarFilter = ExemplarFilter.AlwaysOn });
        registry.CreateCounter("untraced").Add(2);
        using var scraper = new PrometheusScraper(registry, "m");

        string text = Encoding.UTF8.GetString(await scraper.ScrapeAsync(PrometheusExpositionFormat.OpenMetrics));
        Assert.Matches("^untraced_total\\{otel_scope_name=\"m\"\\} 2 # \\{\\} 2\\.0 [0-9.]+$", Line(text, "untraced_total{otel_scope_name=\"m\"}"));

        Dictionary<string, ProtoMessage> families = ProtoMessage.ParseDelimited(await scraper.ScrapeAsync(PrometheusExpositionFormat.Protobuf)).ToDictionary(f => f.String(1));
        ProtoMessage exemplar = families["untraced_total"].Message(4).Message(3).Message(2);
        Assert.Empty(exemplar.Messages(1));
        Assert.Equal(2, exemplar.Double(2));
    }

    [Fact]
    public async Task TheTextFormatHasNoExemplars()
    {
        (MetricRegistry registry, _, _, _) = RecordUnderActivity(0.7);
        using var scraper = new PrometheusScraper(registry, "m");

        string text = Encoding.UTF8.GetString(await scraper.ScrapeAsync(PrometheusExpositionFormat.Text));

        Assert.Contains("requests_total{otel_scope_name=\"m\"} 3\n", text, StringComparison.Ordinal);
        Assert.DoesNotContain("trace_id", text, StringComparison.Ordinal);
    }

    [Fact]
    public async Task ProtobufCarriesTheCounterExemplarAndAnInfiniteBucketForAValueAboveEveryBoundary()
    {
        (MetricRegistry registry, Activity activity, double before, double after) = RecordUnderActivity(5);
        using var scraper = new PrometheusScraper(registry, "m");

        Dictionary<string, ProtoMessage> families = ProtoMessage.ParseDelimited(await scraper.ScrapeAsync(PrometheusExpositionFormat.Protobuf)).ToDictionary(f => f.String(1));

        ProtoMessage counterExemplar = families["requests_total"].Message(4).Message(3).Message(2);
        AssertExemplar(counterExemplar, activity, 3, before, after);
        List<ProtoMessage> buckets = families["latency_seconds"].Message(4).Message(7).Messages(3);
        Assert.Equal([0.5, 1, double.PositiveInfinity], buckets.Select(b => b.Double(2)));
        Assert.Equal([0UL, 0UL, 1UL], buckets.Select(b => b.Varint(1)));
        Assert.False(buckets[0].Has(3));
        AssertExemplar(buckets[2].Message(3), activity, 5, before, after);
    }

    [Fact]
    public async Task WithoutExemplarsNothingFollowsTheSamples()
    {
        var registry = new MetricRegistry();
        using Activity activity = new Activity("test").SetIdFormat(ActivityIdFormat.W3C).Start();
        activity.ActivityTraceFlags = ActivityTraceFlags.Recorded;
        registry.CreateCounter("requests").Add(3);
        using var scraper = new PrometheusScraper(registry, "m");

        string text = Encoding.UTF8.GetString(await scraper.ScrapeAsync(PrometheusExpositionFormat.OpenMetrics));

        Assert.Contains("requests_total{otel_scope_name=\"m\"} 3\n", text, StringComparison.Ordinal);
        Assert.DoesNotContain(" # {", text, StringComparison.Ordinal);
    }

    // OpenMetrics 1.0, Histogram: "Each bucket covers the values less and or equal to it, and the
    // value of the exemplar MUST be within this range." A listened Histogram<float> counts a
    // measurement equal to an advised boundary in that boundary's bucket (le="0.1", as
    // OpenTelemetry does), so its exemplar there must not read as a value above 0.1.
    [Fact]
    public async Task AListenedFloatHistogramsExemplarAtAnAdvisedBoundaryIsWithinItsBucketInOpenMetrics()
    {
        string meterName = "test.listened." + Guid.NewGuid().ToString("N");
        using var meter = new Meter(meterName);
        using var host = new MeterListenerHost([meterName], "ScalableMetrics", () => new MetricRegistry(new MetricRegistryOptions { ExemplarFilter = ExemplarFilter.AlwaysOn }), NullLogger.Instance);
        host.Start();
        meter.CreateHistogram("float.latency", "s", null, tags: null, new InstrumentAdvice<float> { HistogramBucketBoundaries = [0.1f, 0.25f, 0.5f] }).Record(0.1f);
        using var scraper = new PrometheusScraper(new MetricRegistry(), "m", null, null, host);

        string text = Encoding.UTF8.GetString(await scraper.ScrapeAsync(PrometheusExpositionFormat.OpenMetrics));

        Match bucket = Regex.Match(text, "^float_latency_seconds_bucket\\{[^}]*,le=\"([^\"]+)\"\\} 1 # \\{\\} (\\S+) \\S+$", RegexOptions.Multiline);
        Assert.True(bucket.Success, text);
        Assert.Equal("0.1", bucket.Groups[1].Value);
        double exemplar = double.Parse(bucket.Groups[2].Value, CultureInfo.InvariantCulture);
        Assert.True(exemplar <= 0.1, $"The exemplar of the bucket le=\"0.1\" is {bucket.Groups[2].Value}, above its bucket: {bucket.Value}");
    }

    private static (MetricRegistry Registry, Activity Activity, double Before, double After) RecordUnderActivity(double latency)
    {
        var registry = new MetricRegistry(new MetricRegistryOptions { ExemplarFilter = ExemplarFilter.TraceBased });
        PartitionedCounter counter = registry.CreateCounter("requests");
        PartitionedHistogram histogram = registry.CreateHistogram("latency", "s", null, [0.5, 1]);
        Activity activity = new Activity("test").SetIdFormat(ActivityIdFormat.W3C);
        activity.ActivityTraceFlags = ActivityTraceFlags.Recorded;
        double before = DateTimeOffset.UtcNow.ToUnixTimeMilliseconds() / 1000.0;
        using (activity.Start())
        {
            counter.Add(3);
            histogram.Record(latency);
        }

        double after = (DateTimeOffset.UtcNow.ToUnixTimeMilliseconds() + 1) / 1000.0;
        return (registry, activity, before, after);
    }

    private static void AssertExemplar(ProtoMessage exemplar, Activity activity, double value, double before, double after)
    {
        Assert.Equal(
            [("trace_id", activity.TraceId.ToHexString()), ("span_id", activity.SpanId.ToHexString())],
            exemplar.Messages(1).Select(label => (label.String(1), label.String(2))));
        Assert.Equal(value, exemplar.Double(2));
        ProtoMessage timestamp = exemplar.Message(3);
        double seconds = timestamp.Varint(1) + (timestamp.Varint(2) / 1e9);
        Assert.InRange(seconds, before, after);
    }

    private static string Line(string text, string start) =>
        Assert.Single(text.Split('\n'), line => line.StartsWith(start + " ", StringComparison.Ordinal));
}
