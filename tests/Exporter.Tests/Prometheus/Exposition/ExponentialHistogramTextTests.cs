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
