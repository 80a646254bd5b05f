using System.Diagnostics;
using ScalableMetrics.Instruments;

namespace ScalableMetrics.Tests.Instruments;

/// <summary>
/// A read into kept arrays (<see cref="PartitionedCounter.ReadInto"/>, <see cref="PartitionedHistogram.ReadInto"/>,
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
}
