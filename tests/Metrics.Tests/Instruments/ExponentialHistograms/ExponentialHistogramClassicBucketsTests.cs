namespace ScalableMetrics.Tests.Instruments.ExponentialHistograms;

/// <summary>
/// Classic boundaries on an exponential histogram: each record also counts in its classic bucket,
/// exactly, whatever the boundaries (here inside exponential buckets), beside the exponential ones.
/// </summary>
public class ExponentialHistogramClassicBucketsTests
{
    // A whole number of cycles per thread.
    private const int RecordsPerThread = 36_000;

    // 0.1 and 0.25 fall inside exponential buckets at scale 0 ((0.0625, 0.125], (0.125, 0.25] holds 0.25 as its upper bound).
    private static readonly double[] s_boundaries = [0.1, 0.25, 1];

    // 0, 0.05, 0.1 at or below 0.1; 0.2 and 0.25 at or below 0.25; 0.3 and 1 at or below 1; 2 and +Inf above.
    private static readonly double[] s_cycle = [0, 0.05, 0.1, 0.2, 0.25, 0.3, 1, 2, double.PositiveInfinity];

    [Fact]
    public void EachRecordCountsInItsClassicBucketAsWellAsItsExponentialOne()
    {
        var registry = new MetricRegistry();
        PartitionedExponentialHistogram histogram = registry.CreateExponentialHistogram("test.classic", scale: 0, minValue: 1.0 / 64, maxValue: 64, classicBoundaries: s_boundaries);
        ExponentialHistogramSeries series = histogram.Bind();
        foreach (double value in s_cycle)
        {
            series.Record(value);
        }

        foreach (ExponentialHistogramReading reading in new[] { series.Read(), Assert.Single(histogram.Collect()) })
        {
            Assert.Equal(s_boundaries, reading.ClassicBoundaries);
            Assert.Equal([3L, 5, 7], reading.ClassicCumulativeCounts);
            Assert.Equal((9L, 9L), (reading.ClassicCount, reading.Count));
            Assert.Equal(9L, reading.ZeroCount + reading.PositiveBucketCounts.Sum());
        }

        Assert.Equal(s_boundaries, histogram.ClassicBoundaries);
    }

    [Fact]
    public void WithoutClassicBoundariesAReadingHasNone()
    {
        PartitionedExponentialHistogram histogram = new MetricRegistry().CreateExponentialHistogram("test.none");
        histogram.Record(3);

        ExponentialHistogramReading reading = Assert.Single(histogram.Collect());

        Assert.Empty(histogram.ClassicBoundaries);
        Assert.Empty(reading.ClassicBoundaries);
        Assert.Empty(reading.ClassicCumulativeCounts);
        Assert.Equal((0L, 1L), (reading.ClassicCount, reading.Count));
    }

    [StorageTheory]
    [MemberData(nameof(Storages.All), MemberType = typeof(Storages))]
    public void ConcurrentWritersLoseNoClassicCount(string storage)
    {
        var registry = new MetricRegistry(Storages.Options(storage));
        PartitionedExponentialHistogram histogram = registry.CreateExponentialHistogram("test.classic.concurrent", scale: 0, minValue: 1.0 / 64, maxValue: 64, classicBoundaries: s_boundaries);
        int threads = Math.Max(4, Environment.ProcessorCount);

        ConcurrentWriters.Run(threads, t =>
        {
            ExponentialHistogramSeries series = histogram.Bind();
            for (int i = 0; i < RecordsPerThread; i++)
            {
                series.Record(s_cycle[i % s_cycle.Length]);
            }
        });

        ExponentialHistogramReading reading = Assert.Single(histogram.Collect());
        long cycles = (long)threads * (RecordsPerThread / s_cycle.Length);
        Assert.Equal([3 * cycles, 5 * cycles, 7 * cycles], reading.ClassicCumulativeCounts);
        Assert.Equal((9 * cycles, 9 * cycles), (reading.ClassicCount, reading.Count));
    }

    [Fact]
    public void TheLayoutIncludesTheClassicBoundaries()
    {
        var registry = new MetricRegistry();
        PartitionedExponentialHistogram histogram = registry.CreateExponentialHistogram("test.layout", classicBoundaries: s_boundaries);

        Assert.Same(histogram, registry.CreateExponentialHistogram("test.layout", classicBoundaries: [0.1, 0.25, 1]));
        Assert.Throws<ArgumentException>(() => registry.CreateExponentialHistogram("test.layout"));
        Assert.Throws<ArgumentException>(() => registry.CreateExponentialHistogram("test.layout", classicBoundaries: [0.1, 1]));
        registry.CreateExponentialHistogram("test.plain");
        Assert.Throws<ArgumentException>(() => registry.CreateExponentialHistogram("test.plain", classicBoundaries: [1]));
    }

    [Theory]
    [InlineData(new double[0])]
    [InlineData(new[] { 1.0, 0.5 })]
    [InlineData(new[] { 1.0, 1.0 })]
    [InlineData(new[] { double.NaN })]
    [InlineData(new[] { double.PositiveInfinity })]
    public void BadClassicBoundariesAreRefusedNamingTheArgument(double[] boundaries)
    {
        var registry = new MetricRegistry();

        ArgumentException error = Assert.Throws<ArgumentException>(() => registry.CreateExponentialHistogram("test.bad", classicBoundaries: boundaries));

        Assert.Equal("classicBoundaries", error.ParamName);
        Assert.Empty(registry.Instruments);
    }
}
