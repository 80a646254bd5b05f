using System.Diagnostics;

namespace ScalableMetrics.Tests.Instruments.Operations;

/// <summary>OperationData with bucket boundaries in seconds: a latency histogram; without, exactly as before.</summary>
public class OperationBucketsTests
{
    [Fact]
    public void ARecordCountsInTheBucketOfItsElapsedSeconds()
    {
        OperationData operation = new MetricRegistry().CreateOperationData("test.latency", boundaries: [0.001, 0.01, 1]);
        Assert.Equal([0.001, 0.01, 1], operation.Boundaries!);
        OperationSeries series = operation.Bind();
        long oneMillisecond = (long)Math.Floor(0.001 * Stopwatch.Frequency);
        series.RecordElapsedTicks(0);
        series.RecordElapsedTicks(oneMillisecond);
        series.RecordElapsedTicks(oneMillisecond + 1);
        series.Record(TimeSpan.FromMilliseconds(500));
        series.Record(TimeSpan.FromSeconds(1));
        series.Record(TimeSpan.FromSeconds(3));

        OperationReading reading = series.Read();
        Assert.Equal([2L, 1, 2, 1], reading.BucketCounts!);
        Assert.Equal(6, reading.Count);
        Assert.Equal((2 * oneMillisecond) + 1 + ((long)(4.5 * Stopwatch.Frequency)), reading.ElapsedTimestampTicks, tolerance: 2);

        // A scope's time is whatever it took: it counts once, in some bucket.
        OperationSeries scoped = operation.Bind(new KeyValuePair<string, object?>("scoped", true));
        using (scoped.Start())
        {
        }

        OperationReading scopedReading = scoped.Read();
        Assert.Equal(1, scopedReading.Count);
        Assert.Equal(1, scopedReading.BucketCounts!.Sum());

        OperationReading collected = Assert.Single(operation.Collect(), r => r.Tags.Count == 0);
        Assert.Equal(reading.BucketCounts, collected.BucketCounts!);
        Assert.Equal(reading.Count, collected.Count);
        Assert.Equal(reading.ElapsedTimestampTicks, collected.ElapsedTimestampTicks);
    }

    [Fact]
    public void WithoutBoundariesAnOperationHasNoBucketsAndTwoSlots()
    {
        OperationData operation = new MetricRegistry().CreateOperationData("test.plain");
        Assert.Null(operation.Boundaries);
        OperationSeries series = operation.Bind();
        series.RecordElapsedTicks(5);
        Assert.Null(series.Read().BucketCounts);
        Assert.Equal(new OperationReading(series.Tags, 1, 5), Assert.Single(operation.Collect()));
        Assert.Equal(2, series.Slots.Chunk.UsedSlots);
    }

    [Fact]
    public void CreatingAgainWithOtherBoundariesOrNoneThrows()
    {
        var registry = new MetricRegistry();
        OperationData latency = registry.CreateOperationData("test.again", boundaries: [0.1, 1]);
        Assert.Same(latency, registry.CreateOperationData("test.again", boundaries: [0.1, 1]));
        Assert.Equal("boundaries", Assert.Throws<ArgumentException>(() => registry.CreateOperationData("test.again", boundaries: [0.1, 2])).ParamName);
        Assert.Equal("boundaries", Assert.Throws<ArgumentException>(() => registry.CreateOperationData("test.again")).ParamName);

        OperationData plain = registry.CreateOperationData("test.plain");
        Assert.Same(plain, registry.CreateOperationData("test.plain"));
        var e = Assert.Throws<ArgumentException>(() => registry.CreateOperationData("test.plain", boundaries: [1]));
        Assert.Equal("boundaries", e.ParamName);
        Assert.Contains("(none)", e.Message);
        Assert.Equal(2, registry.Instruments.Count);
    }
}
