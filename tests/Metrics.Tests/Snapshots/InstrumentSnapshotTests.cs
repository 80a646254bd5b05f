using System.Diagnostics;
using ScalableMetrics.Instruments.ExponentialHistograms;
using ScalableMetrics.Snapshots;

namespace ScalableMetrics.Tests.Snapshots;

/// <summary>
/// A read into one snapshot reused from read to read (<see cref="Instrument.ReadInto"/>, what the
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
}
