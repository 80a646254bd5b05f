using ScalableMetrics.Instruments.ExponentialHistograms;

namespace ScalableMetrics.Tests.Instruments.ExponentialHistograms;

/// <summary>The exponential histogram: its bucket mapping, its downscaled readings, bad input, and exactness under concurrent writers on every write path.</summary>
public class ExponentialHistogramTests
{
    private const int RecordsPerThread = 48_000;

    // At scale 0 from 1 to 16: zero bucket (≤ 0.5), then (0.5, 1], (1, 2], (2, 4], (4, 8], (8, 16] and above.
    // Two values per bucket, each upper boundary among them: a cycle adds 2 to every bucket and 132.75 to the sum (multiples of 0.25: exact sums).
    private static readonly double[] s_cycle = [0, 0.5, 0.75, 1, 1.25, 2, 2.5, 4, 4.25, 8, 8.5, 100];
    private const double CycleSum = 132.75;
    private static readonly KeyValuePair<string, object?> s_tag = new("kind", "exact");

    private static int Threads => Math.Max(4, Environment.ProcessorCount);

    [Theory]
    [InlineData(0)]
    [InlineData(1)]
    [InlineData(3)]
    [InlineData(8)]
    [InlineData(20)]
    [InlineData(-1)]
    [InlineData(-4)]
    public void PowersOfTwoAreTheUpperBoundaryOfTheirBucket(int scale)
    {
        for (int exponent = -60; exponent <= 60; exponent++)
        {
            double power = Math.ScaleB(1, exponent);
            int expected = scale >= 0 ? (exponent << scale) - 1 : (exponent - 1) >> -scale;
            Assert.Equal(expected, ExponentialBuckets.MapToIndex(power, scale));
            // Just above a power of two: the next bucket; just below: the same one.
            int above = scale >= 0 ? exponent << scale : exponent >> -scale;
            Assert.Equal(above, ExponentialBuckets.MapToIndex(Math.BitIncrement(power), scale));
            Assert.Equal(expected, ExponentialBuckets.MapToIndex(Math.BitDecrement(power), scale));
        }
    }

    [Theory]
    [InlineData(1)]
    [InlineData(3)]
    [InlineData(5)]
    public void InnerBoundariesMapWithinOneBucketAndValuesBetweenThemExactly(int scale)
    {
        for (int index = -200; index < 200; index++)
        {
            double lower = ExponentialBuckets.LowerBoundary(index, scale);
            double upper = ExponentialBuckets.LowerBoundary(index + 1, scale);
            Assert.Equal(index, ExponentialBuckets.MapToIndex((lower + upper) / 2, scale));
            Assert.InRange(ExponentialBuckets.MapToIndex(upper, scale), index, index + 1);
        }
    }

    [Fact]
    public void ReadingCountsZeroBucketRangeEndsAndSum()
    {
        PartitionedExponentialHistogram histogram = new MetricRegistry().CreateExponentialHistogram("test.exp", "s", scale: 0, minValue: 1, maxValue: 16);
        Assert.Equal(0.5, histogram.ZeroThreshold);
        foreach (double value in (double[])[0, -0.0, 0.5, 0.25, 0.75, 3, 16, 17, 1e300, double.PositiveInfinity])
        {
            histogram.Record(value);
        }

        ExponentialHistogramReading reading = Assert.Single(histogram.Collect());
        Assert.Equal(0, reading.Scale);
        Assert.Equal(4, reading.ZeroCount);
        Assert.Equal(-1, reading.PositiveOffset);
        // (0.5, 1]: 0.75; (2, 4]: 3; (8, 16] and above: 16, 17, 1e300, +∞.
        Assert.Equal([1L, 0, 1, 0, 4], reading.PositiveBucketCounts);
        Assert.Equal(10, reading.Count);
        Assert.Equal(double.PositiveInfinity, reading.Sum);
    }

    [Fact]
    public void ReadingDownscalesUntilItsBucketsFitAndCountsStayExact()
    {
        PartitionedExponentialHistogram histogram = new MetricRegistry().CreateExponentialHistogram("test.exp.down", scale: 3, minValue: 1.0 / 1024, maxValue: 1 << 20, maxBuckets: 4);
        // 1.5 (index 4 at scale 3), 3 (12), 1000 (79): at scale 3 a span of 76 buckets; at scale -2 (shift 5): indexes 0, 0 and 2.
        histogram.Record(1.5);
        histogram.Record(3.0);
        histogram.Record(1000.0);
        ExponentialHistogramReading reading = Assert.Single(histogram.Collect());
        Assert.Equal(-2, reading.Scale);
        Assert.Equal(0, reading.PositiveOffset);
        Assert.Equal([2L, 0, 1], reading.PositiveBucketCounts);
        Assert.Equal(3, reading.Count);
        Assert.Equal(1004.5, reading.Sum);
    }

    [Fact]
    public void DownscalingStopsAtPrometheusLowestSchema()
    {
        PartitionedExponentialHistogram histogram = new MetricRegistry().CreateExponentialHistogram("test.exp.floor", scale: -4, minValue: 1e-300, maxValue: 1e300, maxBuckets: 2);
        // At scale -4 (base 2^16): 1e-300 is in bucket -63 and 1e300 in bucket 62; a span of 126 > 2, left so rather than go below schema -4.
        histogram.Record(1e-299);
        histogram.Record(1e299);
        ExponentialHistogramReading reading = Assert.Single(histogram.Collect());
        Assert.Equal(-4, reading.Scale);
        Assert.Equal(2, reading.Count);
        Assert.True(reading.PositiveBucketCounts.Count > 2);
    }

    [Fact]
    public void EmptyReadingHasNoBuckets()
    {
        ExponentialHistogramReading reading = new MetricRegistry().CreateExponentialHistogram("test.exp.empty").Bind().Read();
        Assert.Empty(reading.PositiveBucketCounts);
        Assert.Equal(0, reading.Count);
        Assert.Equal(PartitionedExponentialHistogram.DefaultScale, reading.Scale);
    }

    [Fact]
    public void NaNAndNegativeValuesAreRefusedAndNothingIsRecorded()
    {
        PartitionedExponentialHistogram histogram = new MetricRegistry().CreateExponentialHistogram("test.exp.bad");
        ExponentialHistogramSeries series = histogram.Bind();
        Assert.Equal("value", Assert.Throws<ArgumentOutOfRangeException>(() => histogram.Record(double.NaN)).ParamName);
        Assert.Equal("value", Assert.Throws<ArgumentOutOfRangeException>(() => histogram.Record(-1.0)).ParamName);
        Assert.Equal("value", Assert.Throws<ArgumentOutOfRangeException>(() => histogram.Record(double.NegativeInfinity)).ParamName);
        Assert.Equal("value", Assert.Throws<ArgumentOutOfRangeException>(() => histogram.Record(-1L)).ParamName);
        Assert.Equal("value", Assert.Throws<ArgumentOutOfRangeException>(() => series.Record(double.NaN)).ParamName);
        Assert.Equal("value", Assert.Throws<ArgumentOutOfRangeException>(() => series.Record(-0.5)).ParamName);
        Assert.Equal("value", Assert.Throws<ArgumentOutOfRangeException>(() => series.Record(-2L)).ParamName);
        Assert.Equal(0, series.Read().Count);
    }

    [Theory]
    [InlineData(-5, 1.0, 2.0, 160, "scale")]
    [InlineData(9, 1.0, 2.0, 160, "scale")]
    [InlineData(3, 0.0, 2.0, 160, "minValue")]
    [InlineData(3, double.NaN, 2.0, 160, "minValue")]
    [InlineData(3, 5e-324, 2.0, 160, "minValue")]
    [InlineData(3, 1.0, 1.0, 160, "maxValue")]
    [InlineData(3, 1.0, double.PositiveInfinity, 160, "maxValue")]
    [InlineData(8, 1.0, 8.0, 160, "maxValue")]
    [InlineData(3, 1.0, 2.0, 1, "maxBuckets")]
    public void BadLayoutsAreRefused(int scale, double minValue, double maxValue, int maxBuckets, string parameter)
    {
        var registry = new MetricRegistry();
        var e = Assert.Throws<ArgumentOutOfRangeException>(() => registry.CreateExponentialHistogram("test.exp.layout", scale: scale, minValue: minValue, maxValue: maxValue, maxBuckets: maxBuckets));
        Assert.Equal(parameter, e.ParamName);
        Assert.Empty(registry.Instruments);
    }

    [Fact]
    public void TheDefaultRangeFitsUpToScale4AndNotAbove()
    {
        Assert.Equal(4, ExponentialBuckets.MaxScaleAtDefaultRange);
        var registry = new MetricRegistry();
        Assert.Equal(481, registry.CreateExponentialHistogram("test.exp.scale4", scale: 4).Buckets.BucketCount);
        Assert.Equal(961, ExponentialBuckets.BucketCountOf(5, PartitionedExponentialHistogram.DefaultMinValue, PartitionedExponentialHistogram.DefaultMaxValue));
        Assert.Equal("maxValue", Assert.Throws<ArgumentOutOfRangeException>(() => registry.CreateExponentialHistogram("test.exp.scale5", scale: 5)).ParamName);
        Assert.Equal(8, ExponentialBuckets.MaxScaleFitting(1, 2));
        Assert.Equal(3, ExponentialBuckets.MaxScaleFitting(Math.ScaleB(1, -20), Math.ScaleB(1, 20)));
    }

    [Fact]
    public void CreatingAgainReturnsTheSameInstrumentAndAnotherLayoutIsRefused()
    {
        var registry = new MetricRegistry();
        PartitionedExponentialHistogram histogram = registry.CreateExponentialHistogram("test.exp.again", scale: 2);
        Assert.Same(histogram, registry.CreateExponentialHistogram("test.exp.again", scale: 2));
        Assert.Contains("scale 2", Assert.Throws<ArgumentException>(() => registry.CreateExponentialHistogram("test.exp.again", scale: 4)).Message, StringComparison.Ordinal);
        Assert.Throws<ArgumentException>(() => registry.CreateHistogram("test.exp.again"));
    }

    public static TheoryData<string, Func<MetricRegistry, PartitionedExponentialHistogram>> LayoutsThatDifferIn => new()
    {
        { "minValue", registry => registry.CreateExponentialHistogram("test.exp.layout", minValue: 1.0 / 64) },
        { "maxValue", registry => registry.CreateExponentialHistogram("test.exp.layout", maxValue: 1024) },
        { "maxBuckets", registry => registry.CreateExponentialHistogram("test.exp.layout", maxBuckets: 160) },
        { "classicBoundaries", registry => registry.CreateExponentialHistogram("test.exp.layout", classicBoundaries: [0.1, 1]) },
        { "scale", registry => registry.CreateExponentialHistogram("test.exp.layout", scale: 2) },
    };

    // As CreateHistogram names "boundaries" for boundaries that differ: the argument the caller got
    // wrong, not "scale" whatever differs.
    [Theory]
    [MemberData(nameof(LayoutsThatDifferIn))]
    public void AnotherLayoutIsRefusedNamingTheArgumentThatDiffers(string parameter, Func<MetricRegistry, PartitionedExponentialHistogram> createAgain)
    {
        var registry = new MetricRegistry();
        registry.CreateExponentialHistogram("test.exp.layout");

        ArgumentException e = Assert.Throws<ArgumentException>(() => createAgain(registry));

        Assert.Equal(parameter, e.ParamName);
    }

    [StorageTheory]
    [MemberData(nameof(Storages.AllBoundAndUnbound), MemberType = typeof(Storages))]
    public void BucketsCountAndSumAreExactWhileReadsRun(string storage, bool bound)
    {
        var registry = new MetricRegistry(Storages.Options(storage));
        PartitionedExponentialHistogram histogram = registry.CreateExponentialHistogram("test.exp.exact", scale: 0, minValue: 1, maxValue: 16);
        ExponentialHistogramSeries series = histogram.Bind(s_tag);
        Assert.Equal(registry.WritePath, series.WritePath);
        long previousCount = 0;
        int reads = 0;

        ConcurrentWriters.Run(
            Threads,
            index =>
            {
                for (int i = 0; i < RecordsPerThread; i++)
                {
                    double value = s_cycle[i % s_cycle.Length];
                    if (bound)
                    {
                        series.Record(value);
                    }
                    else if (index % 2 == 0)
                    {
                        histogram.Record(value, s_tag);
                    }
                    else
                    {
                        // The long overload where the value is whole.
                        if (value == Math.Floor(value))
                        {
                            histogram.Record((long)value, s_tag);
                        }
                        else
                        {
                            histogram.Record(value, s_tag);
                        }
                    }
                }
            },
            whileRunning: () =>
            {
                ExponentialHistogramReading reading = reads % 2 == 0 ? series.Read() : Assert.Single(histogram.Collect());
                Assert.True(reading.Count >= previousCount);
                previousCount = reading.Count;
                reads++;
            });

        Assert.True(reads > 0);
        long cycles = (long)Threads * RecordsPerThread / s_cycle.Length;
        foreach (ExponentialHistogramReading reading in new[] { series.Read(), Assert.Single(histogram.Collect()) })
        {
            Assert.Equal(0, reading.Scale);
            Assert.Equal(-1, reading.PositiveOffset);
            Assert.Equal(2 * cycles, reading.ZeroCount);
            Assert.Equal(5, reading.PositiveBucketCounts.Count);
            Assert.All(reading.PositiveBucketCounts, count => Assert.Equal(2 * cycles, count));
            Assert.Equal((long)Threads * RecordsPerThread, reading.Count);
            Assert.Equal(cycles * CycleSum, reading.Sum);
        }
    }

    [Fact]
    public void AtTheDefaultsASeriesSpanningTheWholeRangeIsReadAtTheDefaultScaleAndItsQuantilesKeepItsError()
    {
        PartitionedExponentialHistogram histogram = new MetricRegistry().CreateExponentialHistogram("spread", "s");
        ExponentialHistogramSeries series = histogram.Bind();

        // One value a little above each bucket's lower boundary, over the whole default range: the
        // values least favourable to an estimate by the bucket's upper boundary.
        var values = new List<double>();
        double growth = Math.Pow(2, Math.ScaleB(1, -PartitionedExponentialHistogram.DefaultScale));
        for (double value = PartitionedExponentialHistogram.DefaultMinValue * 1.001; value < PartitionedExponentialHistogram.DefaultMaxValue; value *= growth)
        {
            values.Add(value);
            series.Record(value);
        }

        ExponentialHistogramReading reading = Assert.Single(histogram.Collect());
        Assert.Equal(PartitionedExponentialHistogram.DefaultScale, reading.Scale);
        Assert.Equal(values.Count, reading.Count);

        double relativeError = growth - 1; // about 9 % at scale 3
        foreach (double quantile in (double[])[0.5, 0.9, 0.99])
        {
            long rank = (long)Math.Ceiling(quantile * reading.Count);
            long seen = reading.ZeroCount;
            int bucket = 0;
            while (seen + reading.PositiveBucketCounts[bucket] < rank)
            {
                seen += reading.PositiveBucketCounts[bucket++];
            }

            double estimate = ExponentialBuckets.LowerBoundary(reading.PositiveOffset + bucket + 1, reading.Scale);
            double truth = values[(int)rank - 1];
            Assert.InRange((estimate - truth) / truth, 0, relativeError);
        }
    }
}
