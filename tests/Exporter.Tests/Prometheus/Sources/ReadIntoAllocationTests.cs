using System.Diagnostics;
using ScalableMetrics.Exporter.Prometheus.Exposition;

namespace ScalableMetrics.Exporter.Tests.Prometheus.Sources;

/// <summary>
/// The source reads each kind's series straight from the arena into arrays it keeps from scrape
/// to scrape (<c>ReadInto</c>), not into a reading per series: once a first scrape has grown them
/// and built the label blocks, a scrape of series that exist allocates only a few objects, whatever
/// their number, in every format.
/// </summary>
/// <remarks>Measured with <see cref="GC.GetAllocatedBytesForCurrentThread"/> around a scrape on the
/// test thread, with the writers production runs.</remarks>
public sealed class ReadIntoAllocationTests
{
    // What a registry scrape allocates but not per series: a few enumerators and the source's writer state.
    private const long MaxBytesPerScrape = 1024;

    public static TheoryData<PrometheusExpositionFormat> Formats =>
        [PrometheusExpositionFormat.Text, PrometheusExpositionFormat.OpenMetrics, PrometheusExpositionFormat.Protobuf];

    [Theory]
    [MemberData(nameof(Formats))]
    public void AScrapeOfExponentialHistogramsAllocatesAFewBytesWhateverItsSeries(PrometheusExpositionFormat format)
    {
        var registry = new MetricRegistry();
        PartitionedExponentialHistogram latency = registry.CreateExponentialHistogram("latency", "s", "Latency.");
        PartitionedExponentialHistogram both = registry.CreateExponentialHistogram("size", "By", null, scale: 1, minValue: 1, maxValue: 1 << 24, maxBuckets: 8, classicBoundaries: [64, 1024, 65536]);
        for (int i = 0; i < 3000; i++)
        {
            latency.Record((i % 97) * 0.013, new KeyValuePair<string, object?>("route", "/api/items/" + (i % 100)));
            both.Record(i * 37.0, new KeyValuePair<string, object?>("shard", (long)(i % 20)));
        }

        latency.Record(0.0, new KeyValuePair<string, object?>("route", "zero"));

        (int written, long allocated) = SteadyScrape(registry, format);

        Assert.True(written > 20_000, $"{written} bytes: the registry is not the one meant.");
        Assert.True(allocated <= MaxBytesPerScrape, $"A {format} scrape of {written} bytes allocated {allocated} bytes.");
    }

    [Theory]
    [MemberData(nameof(Formats))]
    public void AScrapeOfDoubleCountersAllocatesAFewBytesWhateverItsSeries(PrometheusExpositionFormat format)
    {
        var registry = new MetricRegistry();
        PartitionedDoubleCounter bytes = registry.CreateDoubleCounter("bytes", "By", "Bytes.");
        for (int i = 0; i < 300; i++)
        {
            bytes.Add(i * 1.25, new KeyValuePair<string, object?>("route", "/api/items/" + (i % 100)), new("dir", i % 3 == 0 ? "in" : "out"));
        }

        AssertFewBytes(registry, format, minBytes: 10_000);
    }

    [Theory]
    [MemberData(nameof(Formats))]
    public void AScrapeOfUpDownCountersAllocatesAFewBytesWhateverItsSeries(PrometheusExpositionFormat format)
    {
        var registry = new MetricRegistry();
        PartitionedUpDownCounter queue = registry.CreateUpDownCounter("queue", "{item}");
        PartitionedDoubleUpDownCounter level = registry.CreateDoubleUpDownCounter("level");
        for (int i = 0; i < 300; i++)
        {
            queue.Add((i % 7) - 3, new KeyValuePair<string, object?>("q", "queue-" + (i % 100)));
            level.Add(((i % 5) - 2) * 0.5, new KeyValuePair<string, object?>("l", "level-" + (i % 100)));
        }

        AssertFewBytes(registry, format, minBytes: 10_000);
    }

    [Theory]
    [MemberData(nameof(Formats))]
    public void AScrapeOfGaugesAllocatesAFewBytesWhateverItsSeries(PrometheusExpositionFormat format)
    {
        var registry = new MetricRegistry();
        Gauge temp = registry.CreateGauge("temp", "Cel");
        DoubleGauge ratio = registry.CreateDoubleGauge("ratio");
        for (int i = 0; i < 100; i++)
        {
            temp.Set(i - 50, new KeyValuePair<string, object?>("room", "room-" + i));
            ratio.Set(i / 7.0, new KeyValuePair<string, object?>("r", "ratio-" + i));
        }

        temp.Bind(new KeyValuePair<string, object?>("room", "never set"));
        AssertFewBytes(registry, format, minBytes: 8_000);
    }

    [Theory]
    [MemberData(nameof(Formats))]
    public void AScrapeOfHistogramsWithExemplarsAllocatesAFewBytesWhateverItsSeries(PrometheusExpositionFormat format)
    {
        var registry = new MetricRegistry(new MetricRegistryOptions { ExemplarFilter = ExemplarFilter.TraceBased });
        PartitionedHistogram latency = registry.CreateHistogram("latency", "s", null, [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]);
        using (Activity activity = new Activity("t").SetIdFormat(ActivityIdFormat.W3C))
        {
            activity.ActivityTraceFlags = ActivityTraceFlags.Recorded;
            activity.Start();
            for (int i = 0; i < 300; i++)
            {
                latency.Record((i % 37) * 0.07, new KeyValuePair<string, object?>("route", "/api/items/" + (i % 100)));
            }
        }

        latency.Record(0.3, new KeyValuePair<string, object?>("route", "no exemplar"));
        AssertFewBytes(registry, format, minBytes: 30_000);
    }

    private static void AssertFewBytes(MetricRegistry registry, PrometheusExpositionFormat format, int minBytes)
    {
        (int written, long allocated) = SteadyScrape(registry, format);

        Assert.True(written > minBytes, $"{written} bytes: the registry is not the one meant.");
        Assert.True(allocated <= MaxBytesPerScrape, $"A {format} scrape of {written} bytes allocated {allocated} bytes.");
    }

    // What every scrape after the first allocates (ProtobufAllocationTests.SteadyScrape).
    internal static (int Written, long Allocated) SteadyScrape(MetricRegistry registry, PrometheusExpositionFormat format) =>
        Exposition.ProtobufAllocationTests.SteadyScrape(registry, ExpositionFormat.Of(format).CreateWriter());
}
