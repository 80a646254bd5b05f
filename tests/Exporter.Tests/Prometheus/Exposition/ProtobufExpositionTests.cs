namespace ScalableMetrics.Exporter.Tests.Prometheus.Exposition;

/// <summary>
/// The protobuf exposition of a registry, scraped in <see cref="PrometheusExpositionFormat.Protobuf"/>, decoded back with Google.Protobuf's <c>CodedInputStream</c> and checked
/// field by field against io/prometheus/client/metrics.proto (prometheus/client_model): MetricFamily
/// name 1, help 2, type 3, metric 4; Metric label 1, gauge 2, counter 3, summary 4, histogram 7;
/// Histogram sample_count 1, sample_sum 2, bucket 3, schema 5 (sint32), zero_threshold 6,
/// zero_count 7, positive_span 12, positive_delta 13 (sint64); BucketSpan offset 1 (sint32), length 2.
/// </summary>
public class ProtobufExpositionTests
{
    [Fact]
    public async Task NativeHistogramCarriesSchemaZeroBucketSpansAndDeltas()
    {
        var registry = new MetricRegistry();
        PartitionedExponentialHistogram histogram = registry.CreateExponentialHistogram("test.latency", "s", "How long.", scale: 0, minValue: 1, maxValue: 1024);
        // 0 in the zero bucket (≤ 0.5); 0.75 in (0.5, 1]; 1.5 twice in (1, 2]; 100 in (64, 128]: five empty buckets between, so two spans.
        foreach (double value in (double[])[0, 0.75, 1.5, 1.5, 100])
        {
            histogram.Record(value, new KeyValuePair<string, object?>("route", "/a"));
        }

        ProtoMessage family = Assert.Single(ProtoMessage.ParseDelimited(await Scrape(registry, "1.0")));
        Assert.Equal("test_latency_seconds", family.String(1));
        Assert.Equal("How long.", family.String(2));
        Assert.Equal(4UL, family.Varint(3));
        ProtoMessage metric = family.Message(4);
        Assert.Equal(
            [("otel_scope_name", "scope"), ("otel_scope_version", "1.0"), ("route", "/a")],
            metric.Messages(1).Select(label => (label.String(1), label.String(2))));
        ProtoMessage h = metric.Message(7);
        Assert.Equal(5UL, h.Varint(1));
        Assert.Equal(103.75, h.Double(2));
        Assert.False(h.Has(3));
        Assert.Equal(0, ProtoMessage.ZigZag(h.Varint(5)));
        Assert.Equal(0.5, h.Double(6));
        Assert.Equal(1UL, h.Varint(7));
        // Prometheus numbers a bucket by its upper boundary: (0.5, 1] is bucket 0, (64, 128] bucket 7.
        List<ProtoMessage> spans = h.Messages(12);
        Assert.Equal([(0L, 2UL), (5L, 1UL)], spans.Select(span => (ProtoMessage.ZigZag(span.Varint(1)), span.Varint(2))));
        Assert.Equal([1L, 1, -1], h.SInts(13));
    }

    [Fact]
    public async Task AHistogramWithClassicBoundariesCarriesBothKindsOfBucketsInOneMessage()
    {
        var registry = new MetricRegistry();
        PartitionedExponentialHistogram histogram = registry.CreateExponentialHistogram("test.both", "s", scale: 0, minValue: 1, maxValue: 1024, classicBoundaries: [0.25, 1, 10]);
        foreach (double value in (double[])[0, 0.75, 1.5, 1.5, 100])
        {
            histogram.Record(value);
        }

        ProtoMessage h = Assert.Single(ProtoMessage.ParseDelimited(await Scrape(registry, null))).Message(4).Message(7);

        // The native fields, as without classic boundaries.
        Assert.Equal((5UL, 103.75), (h.Varint(1), h.Double(2)));
        Assert.Equal((0L, 0.5, 1UL), (ProtoMessage.ZigZag(h.Varint(5)), h.Double(6), h.Varint(7)));
        Assert.Equal([(0L, 2UL), (5L, 1UL)], h.Messages(12).Select(span => (ProtoMessage.ZigZag(span.Varint(1)), span.Varint(2))));
        Assert.Equal([1L, 1, -1], h.SInts(13));

        // The classic buckets: cumulative counts at each finite upper bound; +Inf is the sample count.
        Assert.Equal([(0.25, 1UL), (1.0, 2UL), (10.0, 4UL)], h.Messages(3).Select(bucket => (bucket.Double(2), bucket.Varint(1))));

        // The text formats write the same le buckets.
        using var scraper = new PrometheusScraper(registry, "scope");
        string text = System.Text.Encoding.UTF8.GetString(await scraper.ScrapeAsync(PrometheusExpositionFormat.Text));
        Assert.Contains("test_both_seconds_bucket{otel_scope_name=\"scope\",le=\"0.25\"} 1\n", text, StringComparison.Ordinal);
        Assert.Contains("test_both_seconds_bucket{otel_scope_name=\"scope\",le=\"10\"} 4\n", text, StringComparison.Ordinal);
        Assert.Contains("test_both_seconds_bucket{otel_scope_name=\"scope\",le=\"+Inf\"} 5\n", text, StringComparison.Ordinal);
        Assert.DoesNotContain("le=\"2\"", text, StringComparison.Ordinal);
    }

    [Fact]
    public async Task NativeHistogramWithoutPositiveBucketsCarriesTheNoOpSpan()
    {
        var registry = new MetricRegistry();
        PartitionedExponentialHistogram histogram = registry.CreateExponentialHistogram("test.empty", scale: 4);
        histogram.Record(0.0);
        ProtoMessage h = Assert.Single(ProtoMessage.ParseDelimited(await Scrape(registry, null))).Message(4).Message(7);
        Assert.Equal(4, ProtoMessage.ZigZag(h.Varint(5)));
        Assert.Equal(1UL, h.Varint(7));
        ProtoMessage span = Assert.Single(h.Messages(12));
        Assert.Equal(0UL, span.Varint(1));
        Assert.Equal(0UL, span.Varint(2));
        Assert.False(h.Has(13));
    }

    [Fact]
    public async Task DownscaledReadingIsWrittenAtItsReducedSchema()
    {
        var registry = new MetricRegistry();
        PartitionedExponentialHistogram histogram = registry.CreateExponentialHistogram("test.wide", scale: 3, maxBuckets: 4);
        histogram.Record(1.5);
        histogram.Record(3.0);
        histogram.Record(1000.0);
        ProtoMessage h = Assert.Single(ProtoMessage.ParseDelimited(await Scrape(registry, null))).Message(4).Message(7);
        // At scale -2 (base 16): (1, 16] holds 1.5 and 3, (256, 4096] holds 1000; Prometheus buckets 1 and 3, one empty between.
        Assert.Equal(-2, ProtoMessage.ZigZag(h.Varint(5)));
        ProtoMessage span = Assert.Single(h.Messages(12));
        Assert.Equal((1L, 3UL), (ProtoMessage.ZigZag(span.Varint(1)), span.Varint(2)));
        Assert.Equal([2L, -2, 1], h.SInts(13));
    }

    [Fact]
    public async Task CountersGaugesAndClassicHistogramsAreWrittenTooSoOneScrapeIsComplete()
    {
        var registry = new MetricRegistry();
        registry.CreateCounter("test.requests").Add(7);
        registry.CreateDoubleGauge("test.ratio").Set(0.25);
        PartitionedHistogram classic = registry.CreateHistogram("test.size", "By", boundaries: [10, 100]);
        classic.Record(5);
        classic.Record(50);
        classic.Record(500);
        registry.CreateCounter("test.unused");

        List<ProtoMessage> families = ProtoMessage.ParseDelimited(await Scrape(registry, null));
        Assert.Equal(["test_requests_total", "test_ratio", "test_size_bytes"], families.Select(f => f.String(1)));
        Assert.Equal([0UL, 1UL, 4UL], families.Select(f => f.Varint(3)));
        Assert.Equal(7, families[0].Message(4).Message(3).Double(1));
        Assert.Equal(0.25, families[1].Message(4).Message(2).Double(1));
        ProtoMessage h = families[2].Message(4).Message(7);
        Assert.Equal(3UL, h.Varint(1));
        Assert.Equal(555, h.Double(2));
        Assert.Equal([(1UL, 10.0), (2UL, 100.0)], h.Messages(3).Select(b => (b.Varint(1), b.Double(2))));
        Assert.False(h.Has(5));
    }

    [Fact]
    public async Task NonAsciiIsUtf8AndALoneSurrogateTheReplacementCharacterAsInText()
    {
        // A protobuf string is UTF-8, which cannot carry a lone surrogate: U+FFFD, as the text formats write it.
        var registry = new MetricRegistry();
        registry.CreateCounter("test.awkward", null, "naïve \uD800 end").Add(1, new KeyValuePair<string, object?>("a", "日本 x\uDC00y"));

        ProtoMessage family = Assert.Single(ProtoMessage.ParseDelimited(await Scrape(registry, null)));

        Assert.Equal("naïve \uFFFD end", family.String(2));
        Assert.Equal("日本 x\uFFFDy", family.Message(4).Messages(1).Single(label => label.String(1) == "a").String(2));
    }

    [Fact]
    public async Task EmptyRegistryWritesNothing() =>
        Assert.Empty(await Scrape(new MetricRegistry(), null));

    private static async Task<byte[]> Scrape(MetricRegistry registry, string? scopeVersion)
    {
        using var scraper = new PrometheusScraper(registry, "scope", scopeVersion);
        byte[] scraped = await scraper.ScrapeAsync(PrometheusExpositionFormat.Protobuf);
        ExposedSeries.AssertNoneRepeated(PrometheusExpositionFormat.Protobuf, scraped);
        return scraped;
    }
}
