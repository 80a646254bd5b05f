using System.Diagnostics;
using System.Text;
using Google.Protobuf;
using Io.Prometheus.Client;
using ProtoExemplar = Io.Prometheus.Client.Exemplar;

namespace ScalableMetrics.Exporter.Tests.Prometheus.Exposition;

/// <summary>
/// An exponential histogram's exemplars in the protobuf exposition, decoded with client_model's
/// schema: a native histogram's go in <c>Histogram.exemplars</c> (client_model's field for them,
/// which client_golang writes and Prometheus reads from 2.51), each with its timestamp, as
/// Prometheus requires there; the classic buckets counted beside carry none, as before; the text
/// formats, which have no native histogram, write none.
/// </summary>
public sealed class NativeHistogramExemplarTests
{
    [Fact]
    public async Task HistogramExemplarsCarryTheSampledRecordsWithTraceSpanValueAndTimestamp()
    {
        var registry = new MetricRegistry(new MetricRegistryOptions { ExemplarFilter = ExemplarFilter.TraceBased });
        PartitionedExponentialHistogram histogram = registry.CreateExponentialHistogram("latency", "s");
        histogram.Record(0.1);
        (Activity activity, DateTimeOffset before, DateTimeOffset after) = RecordUnderActivity(histogram, 0.7, 3.0);
        using var scraper = new PrometheusScraper(registry, "m");

        Histogram native = Assert.Single(Decode(await scraper.ScrapeAsync(PrometheusExpositionFormat.Protobuf))["latency_seconds"].Metric).Histogram;

        Assert.Equal(3UL, native.SampleCount);
        Assert.Equal(PartitionedExponentialHistogram.DefaultScale, native.Schema);
        Assert.Empty(native.Bucket);
        Assert.Equal([0.7, 3.0], native.Exemplars.Select(e => e.Value).Order());
        Assert.All(native.Exemplars, e => AssertExemplar(e, activity, before, after));
    }

    [Fact]
    public async Task TheScrapesExemplarsAreTheCollectedOnesOldestFirst()
    {
        var registry = new MetricRegistry(new MetricRegistryOptions { ExemplarFilter = ExemplarFilter.AlwaysOn });
        PartitionedExponentialHistogram histogram = registry.CreateExponentialHistogram("sizes", "By");
        for (int i = 1; i <= 50; i++)
        {
            histogram.Record(i * 10);
        }

        using var scraper = new PrometheusScraper(registry, "m");
        Histogram native = Assert.Single(Decode(await scraper.ScrapeAsync(PrometheusExpositionFormat.Protobuf))["sizes_bytes"].Metric).Histogram;
        IReadOnlyList<ScalableMetrics.Exemplar> collected = Assert.Single(histogram.Collect()).Exemplars;

        Assert.Equal(20, native.Exemplars.Count);
        Assert.Equal(collected.Select(e => e.Value), native.Exemplars.Select(e => e.Value));
        Assert.Equal(collected.Select(e => e.Timestamp.ToUnixTimeMilliseconds()), native.Exemplars.Select(e => e.Timestamp.ToDateTimeOffset().ToUnixTimeMilliseconds()));
        Assert.Equal(native.Exemplars.Select(e => e.Timestamp).Order(), native.Exemplars.Select(e => e.Timestamp));
        Assert.All(native.Exemplars, e => Assert.Empty(e.Label));
    }

    [Fact]
    public async Task TheClassicBucketsBesideKeepNoExemplar()
    {
        var registry = new MetricRegistry(new MetricRegistryOptions { ExemplarFilter = ExemplarFilter.TraceBased });
        PartitionedExponentialHistogram histogram = registry.CreateExponentialHistogram("latency", "s", classicBoundaries: [0.5, 1]);
        (Activity activity, DateTimeOffset before, DateTimeOffset after) = RecordUnderActivity(histogram, 0.7);
        using var scraper = new PrometheusScraper(registry, "m");

        Histogram native = Assert.Single(Decode(await scraper.ScrapeAsync(PrometheusExpositionFormat.Protobuf))["latency_seconds"].Metric).Histogram;

        Assert.Equal([0.5, 1], native.Bucket.Select(b => b.UpperBound));
        Assert.Equal([0UL, 1UL], native.Bucket.Select(b => b.CumulativeCount));
        Assert.All(native.Bucket, b => Assert.Null(b.Exemplar));
        AssertExemplar(Assert.Single(native.Exemplars), activity, before, after);
    }

    [Fact]
    public async Task WithoutAFilterTheNativeHistogramHasNoExemplar()
    {
        var registry = new MetricRegistry();
        PartitionedExponentialHistogram histogram = registry.CreateExponentialHistogram("latency", "s");
        RecordUnderActivity(histogram, 0.7);
        using var scraper = new PrometheusScraper(registry, "m");

        Histogram native = Assert.Single(Decode(await scraper.ScrapeAsync(PrometheusExpositionFormat.Protobuf))["latency_seconds"].Metric).Histogram;

        Assert.Equal(1UL, native.SampleCount);
        Assert.Empty(native.Exemplars);
    }

    [Fact]
    public async Task TheTextFormatsWriteNoneOfThem()
    {
        var registry = new MetricRegistry(new MetricRegistryOptions { ExemplarFilter = ExemplarFilter.TraceBased });
        PartitionedExponentialHistogram histogram = registry.CreateExponentialHistogram("latency", "s");
        RecordUnderActivity(histogram, 0.7);
        using var scraper = new PrometheusScraper(registry, "m");

        string openMetrics = Encoding.UTF8.GetString(await scraper.ScrapeAsync(PrometheusExpositionFormat.OpenMetrics));
        string text = Encoding.UTF8.GetString(await scraper.ScrapeAsync(PrometheusExpositionFormat.Text));

        Assert.Contains("latency_seconds_count{otel_scope_name=\"m\"} 1", openMetrics, StringComparison.Ordinal);
        Assert.DoesNotContain("trace_id", openMetrics, StringComparison.Ordinal);
        Assert.Contains("latency_seconds_count{otel_scope_name=\"m\"} 1", text, StringComparison.Ordinal);
        Assert.DoesNotContain("trace_id", text, StringComparison.Ordinal);
    }

    private static (Activity Activity, DateTimeOffset Before, DateTimeOffset After) RecordUnderActivity(PartitionedExponentialHistogram histogram, params double[] values)
    {
        Activity activity = new Activity("test").SetIdFormat(ActivityIdFormat.W3C);
        activity.ActivityTraceFlags = ActivityTraceFlags.Recorded;
        DateTimeOffset before = DateTimeOffset.UtcNow;
        using (activity.Start())
        {
            foreach (double value in values)
            {
                histogram.Record(value);
            }
        }

        return (activity, before, DateTimeOffset.UtcNow);
    }

    private static void AssertExemplar(ProtoExemplar exemplar, Activity activity, DateTimeOffset before, DateTimeOffset after)
    {
        Assert.Equal(
            [("trace_id", activity.TraceId.ToHexString()), ("span_id", activity.SpanId.ToHexString())],
            exemplar.Label.Select(label => (label.Name, label.Value)));
        Assert.NotNull(exemplar.Timestamp);
        Assert.InRange(exemplar.Timestamp.ToDateTimeOffset(), before, after);
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
}
