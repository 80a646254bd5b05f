using System.Diagnostics;
using ScalableMetrics.Instruments.Histograms;
using ScalableMetrics.Instruments.Operations;

namespace ScalableMetrics.Tests.Instruments.Histograms;

/// <summary>The bucket search: upper bounds inclusive, ±∞ at the ends, and the linear and binary searches always agreeing.</summary>
public class HistogramBucketsTests
{
    [Fact]
    public void AValueEqualToABoundaryLandsInThatBoundarysBucket()
    {
        HistogramBuckets buckets = HistogramBuckets.Create([0, 1, 2.5, 10], "boundaries");
        Assert.Equal(5, buckets.BucketCount);
        (double Value, int Bucket)[] cases =
        [
            (double.NegativeInfinity, 0), (-1, 0), (-0.0, 0), (0, 0), (double.Epsilon, 1), (1, 1), (Math.BitIncrement(1), 2),
            (2.5, 2), (3, 3), (10, 3), (Math.BitIncrement(10), 4), (1e300, 4), (double.PositiveInfinity, 4),
        ];
        foreach ((double value, int bucket) in cases)
        {
            Assert.True(bucket == buckets.FindLinear(value), $"linear: {value:R} went to {buckets.FindLinear(value)}, not {bucket}");
            Assert.True(bucket == buckets.FindBinary(value), $"binary: {value:R} went to {buckets.FindBinary(value)}, not {bucket}");
            Assert.Equal(bucket, buckets.Find(value));
        }
    }

    [Theory]
    [InlineData(1)]
    [InlineData(15)]
    [InlineData(HistogramBuckets.BinarySearchFromBoundaryCount - 1)]
    [InlineData(HistogramBuckets.BinarySearchFromBoundaryCount)]
    [InlineData(HistogramBuckets.MaxBoundaryCount)]
    public void LinearAndBinarySearchAgreeOnEveryEdgeAndBetween(int boundaryCount)
    {
        double[] boundaries = [.. Enumerable.Range(0, boundaryCount).Select(i => (i * 1.5) - 7)];
        HistogramBuckets buckets = HistogramBuckets.Create(boundaries, "boundaries");
        var random = new Random(boundaryCount);
        IEnumerable<double> values = boundaries
            .SelectMany(b => new[] { b, Math.BitDecrement(b), Math.BitIncrement(b), b + 0.75 })
            .Concat(Enumerable.Range(0, 1_000).Select(_ => (random.NextDouble() * boundaryCount * 2) - 10))
            .Append(double.NegativeInfinity).Append(double.PositiveInfinity);
        foreach (double value in values)
        {
            int expected = boundaries.Count(b => b < value);
            Assert.Equal(expected, buckets.FindLinear(value));
            Assert.Equal(expected, buckets.FindBinary(value));
            Assert.Equal(expected, buckets.Find(value));
        }
    }

    [Fact]
    public void TheBoundariesAreCopiedAtCreation()
    {
        double[] boundaries = [1, 2, 3];
        PartitionedHistogram histogram = new MetricRegistry().CreateHistogram("test.copied", boundaries: boundaries);
        boundaries[0] = 100;
        Assert.Equal([1.0, 2, 3], histogram.Boundaries);
        Assert.Throws<NotSupportedException>(() => ((IList<double>)histogram.Boundaries)[0] = 5);
    }

    [Fact]
    public void TimestampBoundariesAreTheFloorOfSecondsTimesTheFrequency()
    {
        TimestampBuckets buckets = HistogramBuckets.Create([0.001, 0.5, 2], "boundaries").ToTimestampBuckets();
        long[] ticks = [(long)Math.Floor(0.001 * Stopwatch.Frequency), Stopwatch.Frequency / 2, 2 * Stopwatch.Frequency];
        Assert.Equal(ticks, buckets.Boundaries.ToArray());
        Assert.Equal(0, buckets.Find(0));
        Assert.Equal(0, buckets.Find(ticks[0]));
        Assert.Equal(1, buckets.Find(ticks[0] + 1));
        Assert.Equal(2, buckets.Find(ticks[2]));
        Assert.Equal(3, buckets.Find(ticks[2] + 1));
        Assert.Equal(3, buckets.Find(long.MaxValue));
    }

    [Fact]
    public void TimestampBoundariesCloserThanATickGiveTheirValuesToTheFirstOfThem()
    {
        // 60 boundaries, so the binary search runs; the first ten are below one tick apart.
        double tick = 1.0 / Stopwatch.Frequency;
        double[] seconds = [.. Enumerable.Range(0, 10).Select(i => (1 + (i * 0.01)) * tick), .. Enumerable.Range(1, 50).Select(i => i * 0.001)];
        TimestampBuckets buckets = HistogramBuckets.Create(seconds, "boundaries").ToTimestampBuckets();
        Assert.Equal(0, buckets.Find(0));
        Assert.Equal(0, buckets.Find(1));
        Assert.Equal(10, buckets.Find(2));
    }
}
