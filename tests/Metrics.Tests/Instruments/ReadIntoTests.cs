using System.Diagnostics;
using ScalableMetrics.Instruments;
using ScalableMetrics.Instruments.ExponentialHistograms;

namespace ScalableMetrics.Tests.Instruments;

/// <summary>
/// A read into kept arrays (<see cref="PartitionedCounter.ReadInto"/>, <see cref="PartitionedHistogram.ReadInto"/>,
/// <see cref="PartitionedExponentialHistogram.ReadInto"/> with <see cref="PartitionedExponentialHistogram.PointOf"/>,
/// what the Prometheus scrape reads) reads what <c>Collect()</c> reads, series by series, on every
/// write path, as series are added between reads into the same scratch.
/// </summary>
public class ReadIntoTests
{
    [StorageTheory]
    [MemberData(nameof(Storages.All), MemberType = typeof(Storages))]
    public void ACounterReadIntoScratchReadsAsCollect(string storage)
    {
        PartitionedCounter counter = new MetricRegistry(Storages.Options(storage)).CreateCounter("test.read");
        var scratch = new SeriesReadScratch();
        for (int round = 1; round <= 3; round++)
        {
            for (int i = 0; i < 40 * round; i++)
            {
                counter.Add(i + round, new KeyValuePair<string, object?>("route", $"/r{i}"));
            }

            ReadOnlySpan<CounterSeries> series = counter.ReadInto(scratch, out bool hasExemplars);
            Dictionary<TagSet, long> collected = counter.Collect().ToDictionary(r => r.Tags, r => r.Value);

            Assert.False(hasExemplars);
            Assert.Equal(collected.Count, series.Length);
            for (int i = 0; i < series.Length; i++)
            {
                Assert.Equal(collected[series[i].Tags], scratch.Totals[i]);
                Assert.Equal(series[i].Read(), scratch.Totals[i]);
            }
        }
    }

    [Fact]
    public void ACounterThatKeepsExemplarsReadsEachSeriesNewest()
    {
        PartitionedCounter counter = new MetricRegistry(new MetricRegistryOptions { ExemplarFilter = ExemplarFilter.TraceBased }).CreateCounter("test.read");
        using (Activity activity = new Activity("t").SetIdFormat(ActivityIdFormat.W3C))
        {
            activity.ActivityTraceFlags = ActivityTraceFlags.Recorded;
            activity.Start();
            counter.Add(3, new KeyValuePair<string, object?>("route", "/a"));
        }

        counter.Add(4, new KeyValuePair<string, object?>("route", "/b"));
        var scratch = new SeriesReadScratch();

        ReadOnlySpan<CounterSeries> series = counter.ReadInto(scratch, out bool hasExemplars);

        Assert.True(hasExemplars);
        Dictionary<TagSet, Exemplar?> collected = counter.Collect().ToDictionary(r => r.Tags, r => r.Exemplar);
        for (int i = 0; i < series.Length; i++)
        {
            Assert.Equal(collected[series[i].Tags], scratch.Exemplars[i]);
        }

        Assert.Contains(scratch.Exemplars[..series.Length].ToArray(), e => e is { Value: 3 });
    }

    [StorageTheory]
    [MemberData(nameof(Storages.All), MemberType = typeof(Storages))]
    public void AHistogramReadIntoScratchReadsAsCollect(string storage)
    {
        PartitionedHistogram histogram = new MetricRegistry(Storages.Options(storage)).CreateHistogram("test.read", boundaries: [1, 2.5, 10]);
        var scratch = new SeriesReadScratch();
        for (int round = 1; round <= 3; round++)
        {
            for (int i = 0; i < 30 * round; i++)
            {
                histogram.Record((i % 13) * 0.75, new KeyValuePair<string, object?>("route", $"/r{i % (10 * round)}"));
            }

            ReadOnlySpan<HistogramSeries> series = histogram.ReadInto(scratch, out int stride);
            Dictionary<TagSet, HistogramReading> collected = histogram.Collect().ToDictionary(r => r.Tags);

            Assert.False(histogram.KeepsExemplars);
            Assert.Equal(collected.Count, series.Length);
            for (int i = 0; i < series.Length; i++)
            {
                HistogramReading reading = collected[series[i].Tags];
                Assert.Equal(reading.BucketCounts, scratch.Totals.Slice(i * stride, reading.BucketCounts.Count).ToArray());
                Assert.Equal(reading.Sum, scratch.Doubles[i]);
            }
        }
    }

    [StorageTheory]
    [MemberData(nameof(Storages.All), MemberType = typeof(Storages))]
    public void AnExponentialHistogramReadIntoScratchReadsAsCollect(string storage)
    {
        var registry = new MetricRegistry(Storages.Options(storage));
        PartitionedExponentialHistogram plain = registry.CreateExponentialHistogram("test.plain", scale: 3, minValue: 0.001, maxValue: 1e6, maxBuckets: 6);
        PartitionedExponentialHistogram both = registry.CreateExponentialHistogram("test.both", scale: 0, minValue: 1, maxValue: 1024, classicBoundaries: [0.5, 4, 100]);
        var scratch = new SeriesReadScratch();
        for (int round = 1; round <= 3; round++)
        {
            for (int i = 0; i < 30 * round; i++)
            {
                plain.Record((i % 13) * 0.75 * round, new KeyValuePair<string, object?>("route", $"/r{i % (10 * round)}"));
                both.Record(i * 3.5, new KeyValuePair<string, object?>("route", $"/r{i % (4 * round)}"));
            }

            plain.Bind(new KeyValuePair<string, object?>("route", "never"));
            foreach (PartitionedExponentialHistogram histogram in (PartitionedExponentialHistogram[])[plain, both])
            {
                ReadOnlySpan<ExponentialHistogramSeries> series = histogram.ReadInto(scratch);
                Dictionary<TagSet, ExponentialHistogramReading> collected = histogram.Collect().ToDictionary(r => r.Tags);

                Assert.Equal(collected.Count, series.Length);
                for (int i = 0; i < series.Length; i++)
                {
                    ExponentialHistogramReading reading = collected[series[i].Tags];
                    ExponentialHistogramPoint point = histogram.PointOf(scratch, i);
                    Assert.Equal(reading.Scale, point.Scale);
                    Assert.Equal(reading.ZeroThreshold, point.ZeroThreshold);
                    Assert.Equal(reading.ZeroCount, point.ZeroCount);
                    Assert.Equal(reading.PositiveOffset, point.PositiveOffset);
                    Assert.Equal(reading.PositiveBucketCounts, point.PositiveBucketCounts.ToArray());
                    Assert.Equal(reading.Count, point.Count);
                    Assert.Equal(reading.Sum, point.Sum);
                    Assert.Equal(reading.ClassicBoundaries, point.ClassicBoundaries);
                    Assert.Equal(reading.ClassicCumulativeCounts, point.ClassicCumulativeCounts.ToArray());
                    Assert.Equal(reading.ClassicCount, point.ClassicCount);
                }
            }
        }
    }

    [StorageTheory]
    [MemberData(nameof(Storages.All), MemberType = typeof(Storages))]
    public void CountersOfOneSlotReadIntoScratchReadAsCollect(string storage)
    {
        var registry = new MetricRegistry(Storages.Options(storage));
        PartitionedDoubleCounter bytes = registry.CreateDoubleCounter("test.bytes");
        PartitionedUpDownCounter queue = registry.CreateUpDownCounter("test.queue");
        PartitionedDoubleUpDownCounter level = registry.CreateDoubleUpDownCounter("test.level");
        var scratch = new SeriesReadScratch();
        for (int round = 1; round <= 3; round++)
        {
            for (int i = 0; i < 30 * round; i++)
            {
                var tag = new KeyValuePair<string, object?>("route", $"/r{i % (10 * round)}");
                bytes.Add(i * 0.75, tag);
                queue.Add(i % 2 == 0 ? long.MaxValue : -i, tag);
                level.Add(i % 3 == 0 ? -1.7e308 : i * 0.5, tag);
            }

            ReadOnlySpan<DoubleCounterSeries> byteSeries = bytes.ReadInto(scratch, out bool hasExemplars);
            Assert.False(hasExemplars);
            Dictionary<TagSet, double> collectedBytes = bytes.Collect().ToDictionary(r => r.Tags, r => r.Value);
            Assert.Equal(collectedBytes.Count, byteSeries.Length);
            for (int i = 0; i < byteSeries.Length; i++)
            {
                Assert.Equal(collectedBytes[byteSeries[i].Tags], scratch.Doubles[i]);
            }

            ReadOnlySpan<UpDownCounterSeries> queueSeries = queue.ReadInto(scratch);
            Dictionary<TagSet, long> collectedQueue = queue.Collect().ToDictionary(r => r.Tags, r => r.Value);
            Assert.Equal(collectedQueue.Count, queueSeries.Length);
            for (int i = 0; i < queueSeries.Length; i++)
            {
                Assert.Equal(collectedQueue[queueSeries[i].Tags], scratch.Totals[i]);
            }

            ReadOnlySpan<DoubleUpDownCounterSeries> levelSeries = level.ReadInto(scratch);
            Dictionary<TagSet, double> collectedLevel = level.Collect().ToDictionary(r => r.Tags, r => r.Value);
            Assert.Equal(collectedLevel.Count, levelSeries.Length);
            for (int i = 0; i < levelSeries.Length; i++)
            {
                Assert.Equal(collectedLevel[levelSeries[i].Tags], scratch.Doubles[i]);
            }
        }
    }

    [StorageTheory]
    [MemberData(nameof(Storages.All), MemberType = typeof(Storages))]
    public void AHistogramReadWithExemplarsIntoScratchReadsAsCollect(string storage)
    {
        MetricRegistryOptions options = Storages.Options(storage);
        options.ExemplarFilter = ExemplarFilter.TraceBased;
        PartitionedHistogram histogram = new MetricRegistry(options).CreateHistogram("test.read", boundaries: [1, 2.5, 10]);
        var scratch = new SeriesReadScratch();
        for (int round = 1; round <= 3; round++)
        {
            using (Activity activity = new Activity("t").SetIdFormat(ActivityIdFormat.W3C))
            {
                activity.ActivityTraceFlags = ActivityTraceFlags.Recorded;
                activity.Start();
                for (int i = 0; i < 30 * round; i++)
                {
                    histogram.Record((i % 13) * 0.75, new KeyValuePair<string, object?>("route", $"/r{i % (10 * round)}"));
                }
            }

            histogram.Record(3, new KeyValuePair<string, object?>("route", "none"));
            ReadOnlySpan<HistogramSeries> series = histogram.ReadWithExemplarsInto(scratch, out int stride);
            Dictionary<TagSet, HistogramReading> collected = histogram.Collect().ToDictionary(r => r.Tags);

            Assert.True(histogram.KeepsExemplars);
            Assert.Equal(collected.Count, series.Length);
            for (int i = 0; i < series.Length; i++)
            {
                HistogramReading reading = collected[series[i].Tags];
                int buckets = reading.BucketCounts.Count;
                Assert.Equal(reading.BucketCounts, scratch.Totals.Slice(i * stride, buckets).ToArray());
                Assert.Equal(reading.Sum, scratch.Doubles[i]);
                Assert.Equal(reading.Exemplars ?? new Exemplar?[buckets], scratch.Exemplars.Slice(i * buckets, buckets).ToArray());
            }
        }
    }
}
