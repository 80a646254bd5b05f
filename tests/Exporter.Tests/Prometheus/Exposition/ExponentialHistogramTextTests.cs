using System.Text;

namespace ScalableMetrics.Exporter.Tests.Prometheus.Exposition;

/// <summary>
/// An exponential histogram in the text formats, which have no native histogram: its buckets as a
/// classic histogram, written from the formats' rules (text 0.0.4: cumulative <c>_bucket</c>
/// samples by <c>le</c>, <c>+Inf</c> last, then <c>_sum</c> and <c>_count</c>; OpenMetrics 1.0:
/// canonical <c>le</c>, <c>_count</c> before <c>_sum</c>, <c>_created</c>, <c># EOF</c>), so that no
/// text scrape leaves the instrument out.
/// </summary>
public class ExponentialHistogramTextTests
{
    [Fact]
    public async Task TextFormatWritesTheZeroBucketAndEachNonEmptyBucketByItsUpperBound()
    {
        MetricRegistry registry = Registry();
        using var scraper = new PrometheusScraper(registry, "scope");

        string text = Encoding.UTF8.GetString(await scraper.ScrapeAsync(PrometheusExpositionFormat.Text));

        Assert.Equal(
            """
            # HELP test_latency_seconds How long.
            # TYPE test_latency_seconds histogram
            test_latency_seconds_bucket{otel_scope_name="scope",le="0.5"} 1
            test_latency_seconds_bucket{otel_scope_name="scope",le="1"} 2
            test_latency_seconds_bucket{otel_scope_name="scope",le="2"} 4
            test_latency_seconds_bucket{otel_scope_name="scope",le="128"} 5
            test_latency_seconds_bucket{otel_scope_name="scope",le="+Inf"} 5
            test_latency_seconds_sum{otel_scope_name="scope"} 103.75
            test_latency_seconds_count{otel_scope_name="scope"} 5

            """.Replace("\r\n", "\n", StringComparison.Ordinal),
            text);
    }

    [Fact]
    public async Task OpenMetricsWritesTheSameBucketsWithCanonicalBoundsAndCreated()
    {
        MetricRegistry registry = Registry();
        using var scraper = new PrometheusScraper(registry, "scope") { EnableOpenMetricsTextCreatedSamples = true };

        string text = Encoding.UTF8.GetString(await scraper.ScrapeAsync(PrometheusExpositionFormat.OpenMetrics));

        Assert.StartsWith(
            """
            # TYPE test_latency_seconds histogram
            # UNIT test_latency_seconds seconds
            # HELP test_latency_seconds How long.
            test_latency_seconds_bucket{otel_scope_name="scope",le="0.5"} 1
            test_latency_seconds_bucket{otel_scope_name="scope",le="1.0"} 2
            test_latency_seconds_bucket{otel_scope_name="scope",le="2.0"} 4
            test_latency_seconds_bucket{otel_scope_name="scope",le="128.0"} 5
            test_latency_seconds_bucket{otel_scope_name="scope",le="+Inf"} 5
            test_latency_seconds_count{otel_scope_name="scope"} 5
            test_latency_seconds_sum{otel_scope_name="scope"} 103.75
            test_latency_seconds_created{otel_scope_name="scope"} 
            """.Replace("\r\n", "\n", StringComparison.Ordinal),
            text);
        Assert.EndsWith("\n# EOF\n", text);
    }

    [Fact]
    public async Task ASeriesWithNothingRecordedIsItsInfiniteBucketSumAndCount()
    {
        var registry = new MetricRegistry();
        registry.CreateExponentialHistogram("test.idle").Bind();
        using var scraper = new PrometheusScraper(registry, "scope");

        string text = Encoding.UTF8.GetString(await scraper.ScrapeAsync(PrometheusExpositionFormat.Text));

        Assert.Equal(
            """
            # TYPE test_idle histogram
            test_idle_bucket{otel_scope_name="scope",le="+Inf"} 0
            test_idle_sum{otel_scope_name="scope"} 0
            test_idle_count{otel_scope_name="scope"} 0

            """.Replace("\r\n", "\n", StringComparison.Ordinal),
            text);
    }

    // A bucket counts the values at or below its le (text format 0.0.4: "le" is the inclusive upper
    // bound; OpenMetrics 1.0, Histogram: "Each bucket covers the values less and or equal to it"),
    // and ClassicBuckets says the exponential buckets are written "exact". A value above maxValue is
    // kept in maxValue's bucket (MetricRegistry.CreateExponentialHistogram): it may be counted under
    // le="+Inf", but no finite le below it may claim it.
    [Theory]
    [InlineData(PrometheusExpositionFormat.Text)]
    [InlineData(PrometheusExpositionFormat.OpenMetrics)]
    public async Task AValueAboveMaxValueIsCountedUnderNoFiniteLeBelowIt(PrometheusExpositionFormat format)
    {
        var registry = new MetricRegistry();
        registry.CreateExponentialHistogram("test.payload", "By", scale: 0, minValue: 1, maxValue: 1024).Record(5_000_000);
        using var scraper = new PrometheusScraper(registry, "scope");

        string text = Encoding.UTF8.GetString(await scraper.ScrapeAsync(format));

        IReadOnlyList<PrometheusSample> samples = format == PrometheusExpositionFormat.Text ? PrometheusText.Parse(text) : PrometheusText.ParseOpenMetrics(text);
        Assert.Equal(1, PrometheusText.Single(samples, "test_payload_bytes_bucket", ("le", "+Inf")).NumericValue);
        Assert.All(
            samples.Where(s => s.Name == "test_payload_bytes_bucket" && s.Labels["le"] != "+Inf" && s.NumericValue > 0),
            s => Assert.True(double.Parse(s.Labels["le"], System.Globalization.CultureInfo.InvariantCulture) >= 5_000_000, $"le=\"{s.Labels["le"]}\" counts {s.Value} value(s), but the only value recorded is 5000000:\n{text}"));
    }

    // Downscaled to 2 buckets, the top bucket (512, 1024] merges with (256, 512] into (256, 1024]: its
    // le="1024" counts 300, the rest of that merged bucket, and neither 600 nor 5,000,000, which the top
    // bucket counted alike (one value above maxValue is enough for none of them to be under a finite le).
    [Fact]
    public async Task AMergedTopBucketsLeCountsOnlyTheValuesBelowIt()
    {
        var registry = new MetricRegistry();
        PartitionedExponentialHistogram histogram = registry.CreateExponentialHistogram("test.payload", "By", scale: 0, minValue: 1, maxValue: 1024, maxBuckets: 2);
        histogram.Record(100);
        histogram.Record(300);
        histogram.Record(600);
        histogram.Record(5_000_000);
        using var scraper = new PrometheusScraper(registry, "scope");

        string text = Encoding.UTF8.GetString(await scraper.ScrapeAsync(PrometheusExpositionFormat.Text));

        Assert.Contains(
            """
            test_payload_bytes_bucket{otel_scope_name="scope",le="256"} 1
            test_payload_bytes_bucket{otel_scope_name="scope",le="1024"} 2
            test_payload_bytes_bucket{otel_scope_name="scope",le="+Inf"} 4
            test_payload_bytes_sum{otel_scope_name="scope"} 5.001e+06
            test_payload_bytes_count{otel_scope_name="scope"} 4

            """.Replace("\r\n", "\n", StringComparison.Ordinal),
            text,
            StringComparison.Ordinal);
    }

    // Scale 0 (base 2), values from 1: the zero bucket is (0, 0.5]. 0 there; 0.75 in (0.5, 1];
    // 1.5 twice in (1, 2]; 100 in (64, 128].
    private static MetricRegistry Registry()
    {
        var registry = new MetricRegistry();
        PartitionedExponentialHistogram histogram = registry.CreateExponentialHistogram("test.latency", "s", "How long.", scale: 0, minValue: 1, maxValue: 1024);
        foreach (double value in (double[])[0, 0.75, 1.5, 1.5, 100])
        {
            histogram.Record(value);
        }

        return registry;
    }
}
