namespace ScalableMetrics.Tests.Instruments.Histograms;

public class HistogramTests
{
    private static readonly KeyValuePair<string, object?> s_route = new("http.route", "/hello");

    [Fact]
    public void ARecordCountsInItsBucketAndAddsToTheSum()
    {
        PartitionedHistogram histogram = new MetricRegistry().CreateHistogram("test.histogram", "s", boundaries: [0, 1, 2.5, 10]);
        HistogramSeries series = histogram.Bind(s_route);
        foreach (double value in new[] { -1, 0, 0.25, 1, 1.5, 2.5, 3, 10, 10.25, 100 })
        {
            series.Record(value);
        }

        series.Record(2L);
        histogram.Record(7L, s_route);
        histogram.Record(0.5, s_route);

        HistogramReading reading = series.Read();
        Assert.Equal([2L, 3, 3, 3, 2], reading.BucketCounts);
        Assert.Equal(13, reading.Count);
        Assert.Equal(127.5 + 2 + 7 + 0.5, reading.Sum);
        Assert.Equal([0.0, 1, 2.5, 10], reading.Boundaries);
        Assert.Equal(s_route, Assert.Single(reading.Tags));

        HistogramReading collected = Assert.Single(histogram.Collect());
        Assert.Equal(reading.BucketCounts, collected.BucketCounts);
        Assert.Equal(reading.Sum, collected.Sum);
        Assert.Equal(reading.Count, collected.Count);
    }

    [Fact]
    public void InfinitiesGoToTheFirstAndLastBucketsAndMakeTheSumInfinite()
    {
        PartitionedHistogram histogram = new MetricRegistry().CreateHistogram("test.infinite", boundaries: [1]);
        histogram.Record(double.NegativeInfinity);
        Assert.Equal(double.NegativeInfinity, histogram.Bind().Read().Sum);
        histogram.Record(double.PositiveInfinity);
        HistogramReading reading = Assert.Single(histogram.Collect());
        Assert.Equal([1L, 1], reading.BucketCounts);
        Assert.True(double.IsNaN(reading.Sum), "-∞ + +∞ is NaN, as IEEE 754 says.");
    }

    [Fact]
    public void ASeriesWithNoRecordIsCollectedWithZeros()
    {
        PartitionedHistogram histogram = new MetricRegistry().CreateHistogram("test.empty");
        histogram.Bind(s_route);
        HistogramReading reading = Assert.Single(histogram.Collect());
        Assert.Equal(PartitionedHistogram.DefaultBoundaries.Count + 1, reading.BucketCounts.Count);
        Assert.All(reading.BucketCounts, count => Assert.Equal(0, count));
        Assert.Equal(0, reading.Count);
        Assert.Equal(0, reading.Sum);
    }

    [Fact]
    public void WithoutBoundariesAHistogramTakesOpenTelemetrysDefaults()
    {
        PartitionedHistogram histogram = new MetricRegistry().CreateHistogram("test.default");
        Assert.Equal([0.0, 5, 10, 25, 50, 75, 100, 250, 500, 750, 1000, 2500, 5000, 7500, 10000], histogram.Boundaries);
        Assert.Equal(histogram.Boundaries, PartitionedHistogram.DefaultBoundaries);
    }

    [Fact]
    public void CreatingAgainWithTheSameBoundariesReturnsItAndWithOthersThrows()
    {
        var registry = new MetricRegistry();
        PartitionedHistogram histogram = registry.CreateHistogram("test.again", "ms", boundaries: [1, 2]);
        Assert.Same(histogram, registry.CreateHistogram("test.again", "ms", boundaries: new List<double> { 1, 2 }));
        var e = Assert.Throws<ArgumentException>(() => registry.CreateHistogram("test.again", "ms", boundaries: [1, 3]));
        Assert.Equal("boundaries", e.ParamName);
        Assert.Contains("[1, 2]", e.Message);
        Assert.Contains("[1, 3]", e.Message);
        Assert.Equal("boundaries", Assert.Throws<ArgumentException>(() => registry.CreateHistogram("test.again", "ms")).ParamName);

        PartitionedHistogram defaults = registry.CreateHistogram("test.defaults");
        Assert.Same(defaults, registry.CreateHistogram("test.defaults", boundaries: [.. PartitionedHistogram.DefaultBoundaries]));
        Assert.Equal(2, registry.Instruments.Count);
    }

    [Fact]
    public void ANameTakenByAnotherKindIsRefused()
    {
        var registry = new MetricRegistry();
        registry.CreateCounter("test.kind");
        Assert.Equal("name", Assert.Throws<ArgumentException>(() => registry.CreateHistogram("test.kind")).ParamName);
        registry.CreateHistogram("test.kind2");
        Assert.Equal("name", Assert.Throws<ArgumentException>(() => registry.CreateUpDownCounter("test.kind2")).ParamName);
    }

    [Fact]
    public void ASixteenBucketSeriesTakesSeventeenSlotsPerRegion()
    {
        PartitionedHistogram histogram = new MetricRegistry().CreateHistogram("test.slots", boundaries: [.. Enumerable.Range(1, 15).Select(i => (double)i)]);
        HistogramSeries[] series = [.. Enumerable.Range(0, 10).Select(n => histogram.Bind(new KeyValuePair<string, object?>("n", n)))];

        // The first chunks hold 16 slots per region and then more: series that share a chunk sit 17 slots apart.
        int neighbours = 0;
        for (int i = 1; i < series.Length; i++)
        {
            if (ReferenceEquals(series[i - 1].Slots.Chunk, series[i].Slots.Chunk))
            {
                Assert.Equal(17, series[i].Slots.FirstSlot - series[i - 1].Slots.FirstSlot);
                neighbours++;
            }
        }

        Assert.True(neighbours > 0);
        Assert.Equal(17, series[0].Slots.Chunk.UsedSlots);
    }

    [StorageTheory]
    [MemberData(nameof(Storages.All), MemberType = typeof(Storages))]
    public void PastTheSeriesLimitNewTagSetsRecordIntoTheOverflowSeries(string storage)
    {
        MetricRegistryOptions options = Storages.Options(storage);
        options.MaxSeriesPerInstrument = 3;
        PartitionedHistogram histogram = new MetricRegistry(options).CreateHistogram("test.overflow", boundaries: [10]);
        for (int user = 0; user < 10; user++)
        {
            histogram.Record(user * 4, new KeyValuePair<string, object?>("user", user));
        }

        IReadOnlyList<HistogramReading> readings = histogram.Collect();
        Assert.Equal(4, readings.Count);
        HistogramReading overflow = Assert.Single(readings, r => r.Tags.Count == 1 && r.Tags[0].Key == "otel.metric.overflow");
        Assert.Equal([0L, 7], overflow.BucketCounts);
        Assert.Equal(4.0 * (3 + 4 + 5 + 6 + 7 + 8 + 9), overflow.Sum);
        Assert.Equal(10, readings.Sum(r => r.Count));
        Assert.Equal(4.0 * 45, readings.Sum(r => r.Sum));
    }
}
