using System.Diagnostics;
using ScalableMetrics.Instruments.ExponentialHistograms;
using ScalableMetrics.Snapshots;
using ScalableMetrics.Tests.Shared;

namespace ScalableMetrics.Tests.Snapshots;

/// <summary>
/// A read into one snapshot reused from read to read (<see cref="Instrument.ReadInto(InstrumentSnapshot)"/>, what the
/// Prometheus scrape, OTLP and the bridge read) reads what <c>Collect()</c> and each series' own
/// <c>Read()</c> read, series by series, on every write path, as series are added between reads.
/// </summary>
public class InstrumentSnapshotTests
{
    [StorageTheory]
    [MemberData(nameof(Storages.All), MemberType = typeof(Storages))]
    public void ACounterReadIntoScratchReadsAsCollect(string storage)
    {
        PartitionedCounter counter = new MetricRegistry(Storages.Options(storage)).CreateCounter("test.read");
        var snapshot = new InstrumentSnapshot();
        for (int round = 1; round <= 3; round++)
        {
            for (int i = 0; i < 40 * round; i++)
            {
                counter.Add(i + round, new KeyValuePair<string, object?>("route", $"/r{i}"));
            }

            counter.ReadInto(snapshot);
            Dictionary<TagSet, long> collected = counter.Collect().ToDictionary(r => r.Tags, r => r.Value);

            Assert.False(snapshot.HasExemplars);
            Assert.Equal(collected.Count, snapshot.Count);
            for (int i = 0; i < snapshot.Count; i++)
            {
                var series = (CounterSeries)snapshot.KeyAt(i);
                Assert.Same(series.Tags, snapshot.TagsAt(i));
                Assert.Equal(collected[snapshot.TagsAt(i)], snapshot.LongValues[i]);
                Assert.Equal(series.Read(), snapshot.LongValues[i]);
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
        var snapshot = new InstrumentSnapshot();

        counter.ReadInto(snapshot);

        Assert.True(snapshot.HasExemplars);
        Dictionary<TagSet, Exemplar?> collected = counter.Collect().ToDictionary(r => r.Tags, r => r.Exemplar);
        var exemplars = new List<Exemplar?>();
        for (int i = 0; i < snapshot.Count; i++)
        {
            Assert.Equal(collected[snapshot.TagsAt(i)], snapshot.ExemplarAt(i));
            Assert.Equal(((CounterSeries)snapshot.KeyAt(i)).ReadExemplar(), snapshot.ExemplarAt(i));
            exemplars.Add(snapshot.ExemplarAt(i));
        }

        Assert.Contains(exemplars, e => e is { Value: 3 });
    }

    [StorageTheory]
    [MemberData(nameof(Storages.All), MemberType = typeof(Storages))]
    public void AHistogramReadIntoScratchReadsAsCollect(string storage)
    {
        PartitionedHistogram histogram = new MetricRegistry(Storages.Options(storage)).CreateHistogram("test.read", boundaries: [1, 2.5, 10]);
        var snapshot = new InstrumentSnapshot();
        for (int round = 1; round <= 3; round++)
        {
            for (int i = 0; i < 30 * round; i++)
            {
                histogram.Record((i % 13) * 0.75, new KeyValuePair<string, object?>("route", $"/r{i % (10 * round)}"));
            }

            histogram.ReadInto(snapshot);
            Dictionary<TagSet, HistogramReading> collected = histogram.Collect().ToDictionary(r => r.Tags);

            Assert.False(histogram.KeepsExemplars);
            Assert.False(snapshot.HasExemplars);
            Assert.Equal(collected.Count, snapshot.Count);
            for (int i = 0; i < snapshot.Count; i++)
            {
                HistogramReading reading = collected[snapshot.TagsAt(i)];
                HistogramReading own = ((HistogramSeries)snapshot.KeyAt(i)).Read();
                Assert.Equal(reading.BucketCounts, snapshot.BucketCountsAt(i).ToArray());
                Assert.Equal(own.BucketCounts, snapshot.BucketCountsAt(i).ToArray());
                Assert.Equal(reading.Sum, snapshot.SumAt(i));
                Assert.Equal(own.Sum, snapshot.SumAt(i));
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
        var snapshot = new InstrumentSnapshot();
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
                histogram.ReadInto(snapshot);
                Dictionary<TagSet, ExponentialHistogramReading> collected = histogram.Collect().ToDictionary(r => r.Tags);

                Assert.Equal(collected.Count, snapshot.Count);
                for (int i = 0; i < snapshot.Count; i++)
                {
                    ExponentialHistogramReading reading = collected[snapshot.TagsAt(i)];
                    Assert.Equal(((ExponentialHistogramSeries)snapshot.KeyAt(i)).Read().Count, reading.Count);
                    ExponentialHistogramPoint point = snapshot.ExponentialHistogramAt(i);
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
        var snapshot = new InstrumentSnapshot();
        for (int round = 1; round <= 3; round++)
        {
            for (int i = 0; i < 30 * round; i++)
            {
                var tag = new KeyValuePair<string, object?>("route", $"/r{i % (10 * round)}");
                bytes.Add(i * 0.75, tag);
                queue.Add(i % 2 == 0 ? long.MaxValue : -i, tag);
                level.Add(i % 3 == 0 ? -1.7e308 : i * 0.5, tag);
            }

            bytes.ReadInto(snapshot);
            Assert.False(snapshot.HasExemplars);
            Dictionary<TagSet, double> collectedBytes = bytes.Collect().ToDictionary(r => r.Tags, r => r.Value);
            Assert.Equal(collectedBytes.Count, snapshot.Count);
            for (int i = 0; i < snapshot.Count; i++)
            {
                Assert.Equal(collectedBytes[snapshot.TagsAt(i)], snapshot.DoubleValues[i]);
                Assert.Equal(((DoubleCounterSeries)snapshot.KeyAt(i)).Read(), snapshot.DoubleValues[i]);
            }

            queue.ReadInto(snapshot);
            Dictionary<TagSet, long> collectedQueue = queue.Collect().ToDictionary(r => r.Tags, r => r.Value);
            Assert.Equal(collectedQueue.Count, snapshot.Count);
            for (int i = 0; i < snapshot.Count; i++)
            {
                Assert.Equal(collectedQueue[snapshot.TagsAt(i)], snapshot.LongValues[i]);
                Assert.Equal(((UpDownCounterSeries)snapshot.KeyAt(i)).Read(), snapshot.LongValues[i]);
            }

            level.ReadInto(snapshot);
            Dictionary<TagSet, double> collectedLevel = level.Collect().ToDictionary(r => r.Tags, r => r.Value);
            Assert.Equal(collectedLevel.Count, snapshot.Count);
            for (int i = 0; i < snapshot.Count; i++)
            {
                Assert.Equal(collectedLevel[snapshot.TagsAt(i)], snapshot.DoubleValues[i]);
                Assert.Equal(((DoubleUpDownCounterSeries)snapshot.KeyAt(i)).Read(), snapshot.DoubleValues[i]);
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
        var snapshot = new InstrumentSnapshot();
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
            histogram.ReadInto(snapshot);
            Dictionary<TagSet, HistogramReading> collected = histogram.Collect().ToDictionary(r => r.Tags);

            Assert.True(histogram.KeepsExemplars);
            Assert.True(snapshot.HasExemplars);
            Assert.Equal(collected.Count, snapshot.Count);
            for (int i = 0; i < snapshot.Count; i++)
            {
                HistogramReading reading = collected[snapshot.TagsAt(i)];
                HistogramReading own = ((HistogramSeries)snapshot.KeyAt(i)).Read();
                Assert.Equal(reading.BucketCounts, snapshot.BucketCountsAt(i).ToArray());
                Assert.Equal(reading.Sum, snapshot.SumAt(i));
                Assert.Equal(reading.Exemplars, snapshot.BucketExemplarsAt(i) is { Count: > 0 } e ? e.ToArray() : null);
                Assert.Equal(own.Exemplars, snapshot.BucketExemplarsAt(i) is { Count: > 0 } kept ? kept.ToArray() : null);
            }

            Assert.Contains(Enumerable.Range(0, snapshot.Count), i => snapshot.BucketExemplarsAt(i).Count == 0);
        }
    }

    [Fact]
    public void ReadingsCollectedEarlierKeepTheirValuesThroughLaterCollectionsOfEveryKind()
    {
        var registry = new MetricRegistry();
        PartitionedHistogram histogram = registry.CreateHistogram("test.kept", boundaries: [1, 10]);
        PartitionedExponentialHistogram exponential = registry.CreateExponentialHistogram("test.kept.exponential");
        OperationData operation = registry.CreateOperationData("test.kept.operation", boundaries: [0.5]);
        histogram.Record(0.5, new KeyValuePair<string, object?>("s", "a"));
        exponential.Record(3, new KeyValuePair<string, object?>("s", "a"));
        operation.Record(TimeSpan.FromSeconds(0.25), new KeyValuePair<string, object?>("s", "a"));

        // Collect() reuses one snapshot between calls: what each reading carries must be its own.
        IReadOnlyList<HistogramReading> histogramBefore = histogram.Collect();
        IReadOnlyList<ExponentialHistogramReading> exponentialBefore = exponential.Collect();
        IReadOnlyList<OperationReading> operationBefore = operation.Collect();
        for (int i = 0; i < 50; i++)
        {
            histogram.Record(20, new KeyValuePair<string, object?>("s", i % 2 == 0 ? "a" : "b"));
            exponential.Record(1_000, new KeyValuePair<string, object?>("s", "a"));
            operation.Record(TimeSpan.FromSeconds(2), new KeyValuePair<string, object?>("s", "a"));
        }

        IReadOnlyList<HistogramReading> histogramAfter = histogram.Collect();
        _ = exponential.Collect();
        _ = operation.Collect();

        Assert.Equal([1L, 0, 0], histogramBefore.Single().BucketCounts);
        Assert.Equal(1, exponentialBefore.Single().Count);
        Assert.Equal(3, exponentialBefore.Single().Sum);
        Assert.Equal([1L, 0], operationBefore.Single().BucketCounts);
        Assert.Equal([1L, 0, 25], histogramAfter.Single(r => r.Tags[0].Value is "a").BucketCounts);
        Assert.Equal([0L, 0, 25], histogramAfter.Single(r => r.Tags[0].Value is "b").BucketCounts);
    }

    [Fact]
    public void CollectionsOnManyThreadsAtOnceEachReadTheirOwnInstrument()
    {
        var registry = new MetricRegistry();
        PartitionedHistogram[] histograms = [.. Enumerable.Range(0, 4).Select(i => registry.CreateHistogram($"test.concurrent.{i}", boundaries: [1]))];
        for (int i = 0; i < histograms.Length; i++)
        {
            for (int series = 0; series < 100 * (i + 1); series++)
            {
                histograms[i].Record(i, new KeyValuePair<string, object?>("series", series));
            }
        }

        // Four threads share the one kept snapshot, or make their own while another holds it.
        var failures = new System.Collections.Concurrent.ConcurrentQueue<string>();
        ConcurrentWriters.Run(histograms.Length, thread =>
        {
            for (int round = 0; round < 200; round++)
            {
                IReadOnlyList<HistogramReading> readings = histograms[thread].Collect();
                long[] expected = thread <= 1 ? [1L, 0] : [0L, 1];
                if (readings.Count != 100 * (thread + 1) || readings.Any(r => !r.BucketCounts.SequenceEqual(expected)))
                {
                    failures.Enqueue($"thread {thread}, round {round}: {readings.Count} readings");
                }
            }
        });

        Assert.Empty(failures);
    }
}
