namespace ScalableMetrics.Tests.Instruments;

/// <summary>
/// Every new instrument, on every write path, bound and unbound, under concurrent writers and
/// concurrent reads: nothing lost or counted twice. Values are multiples of 0.25, so that every
/// partial sum of doubles is exact and the totals can be compared for equality.
/// </summary>
public class InstrumentExactnessTests
{
    private const int RecordsPerThread = 50_000;
    private static readonly double[] s_boundaries = [0, 1, 2.5, 10];

    // Two values per bucket, each boundary among them: a cycle adds 2 to every bucket and 127.5 to the sum.
    private static readonly double[] s_cycle = [-1, 0, 0.25, 1, 1.5, 2.5, 3, 10, 10.25, 100];
    private const double CycleSum = 127.5;
    private static readonly KeyValuePair<string, object?> s_tag = new("kind", "exact");

    private static int Threads => Math.Max(4, Environment.ProcessorCount);

    [StorageTheory]
    [MemberData(nameof(Storages.AllBoundAndUnbound), MemberType = typeof(Storages))]
    public void HistogramBucketsCountAndSumAreExactWhileReadsRun(string storage, bool bound)
    {
        var registry = new MetricRegistry(Storages.Options(storage));
        PartitionedHistogram histogram = registry.CreateHistogram("test.histogram.exact", boundaries: s_boundaries);
        HistogramSeries series = histogram.Bind(s_tag);
        Assert.Equal(registry.WritePath, series.WritePath);
        long[] previous = new long[s_boundaries.Length + 1];
        int reads = 0;

        ConcurrentWriters.Run(
            Threads,
            _ =>
            {
                for (int i = 0; i < RecordsPerThread; i++)
                {
                    double value = s_cycle[i % s_cycle.Length];
                    if (bound)
                    {
                        series.Record(value);
                    }
                    else
                    {
                        histogram.Record(value, s_tag);
                    }
                }
            },
            whileRunning: () =>
            {
                HistogramReading reading = reads % 2 == 0 ? series.Read() : Assert.Single(histogram.Collect());
                AssertConsistent(reading, previous);
                reads++;
            });

        Assert.True(reads > 0);
        long cycles = (long)Threads * RecordsPerThread / s_cycle.Length;
        foreach (HistogramReading reading in new[] { series.Read(), Assert.Single(histogram.Collect()) })
        {
            Assert.All(reading.BucketCounts, count => Assert.Equal(2 * cycles, count));
            Assert.Equal((long)Threads * RecordsPerThread, reading.Count);
            Assert.Equal(cycles * CycleSum, reading.Sum);
        }
    }

    [StorageTheory]
    [MemberData(nameof(Storages.All), MemberType = typeof(Storages))]
    public void HistogramLongRecordsAreExact(string storage)
    {
        PartitionedHistogram histogram = new MetricRegistry(Storages.Options(storage)).CreateHistogram("test.histogram.long", boundaries: [2]);
        HistogramSeries series = histogram.Bind();
        const int Records = 3 * 10_000;
        ConcurrentWriters.Run(Threads, index =>
        {
            for (int i = 0; i < Records; i++)
            {
                // 1, 2 and 3 in turn: two in the first bucket, one in the second.
                if (index % 2 == 0)
                {
                    series.Record((long)(1 + (i % 3)));
                }
                else
                {
                    histogram.Record((long)(1 + (i % 3)));
                }
            }
        }, whileRunning: () => histogram.Collect());

        HistogramReading reading = series.Read();
        long perValue = (long)Threads * Records / 3;
        Assert.Equal([2 * perValue, perValue], reading.BucketCounts);
        Assert.Equal(6.0 * perValue, reading.Sum);
    }

    [StorageTheory]
    [MemberData(nameof(Storages.AllBoundAndUnbound), MemberType = typeof(Storages))]
    public void UpDownCounterWithMixedSignsAcrossThreadsIsExact(string storage, bool bound)
    {
        var registry = new MetricRegistry(Storages.Options(storage));
        PartitionedUpDownCounter counter = registry.CreateUpDownCounter("test.updown.exact");
        UpDownCounterSeries series = counter.Bind(s_tag);
        int reads = 0;

        ConcurrentWriters.Run(
            Threads,
            index =>
            {
                // Even threads go up by 3 and down by 1; odd threads down by 5 and up by 1: partitions go negative.
                long up = index % 2 == 0 ? 3 : 1;
                long down = index % 2 == 0 ? 1 : 5;
                for (int i = 0; i < RecordsPerThread; i++)
                {
                    if (bound)
                    {
                        series.Add(up);
                        series.Add(-down);
                        series.Increment();
                        series.Decrement();
                    }
                    else
                    {
                        counter.Add(up, s_tag);
                        counter.Add(-down, s_tag);
                    }
                }
            },
            whileRunning: () =>
            {
                _ = reads % 2 == 0 ? series.Read() : Assert.Single(counter.Collect()).Value;
                reads++;
            });

        Assert.True(reads > 0);
        long expected = Enumerable.Range(0, Threads).Sum(t => (t % 2 == 0 ? 2L : -4L) * RecordsPerThread);
        Assert.Equal(expected, series.Read());
        Assert.Equal(expected, Assert.Single(counter.Collect()).Value);
    }

    [StorageTheory]
    [MemberData(nameof(Storages.All), MemberType = typeof(Storages))]
    public void UpDownCounterPartitionsMayWrapWhileTheTotalStaysExact(string storage)
    {
        UpDownCounterSeries series = new MetricRegistry(Storages.Options(storage)).CreateUpDownCounter("test.updown.wrap").Bind();

        // One after the other on two threads: per thread or on two processors, two partitions, the first past long.MaxValue.
        ConcurrentWriters.Run(1, _ =>
        {
            series.Add(long.MaxValue);
            series.Add(10);
        });
        ConcurrentWriters.Run(1, _ => series.Add(-long.MaxValue));
        Assert.Equal(10, series.Read());
        series.Add(long.MinValue + 1);
        Assert.Equal(long.MinValue + 11, series.Read());
    }

    [StorageTheory]
    [MemberData(nameof(Storages.AllBoundAndUnbound), MemberType = typeof(Storages))]
    public void DoubleUpDownCounterWithMixedSignsAcrossThreadsIsExact(string storage, bool bound)
    {
        var registry = new MetricRegistry(Storages.Options(storage));
        PartitionedDoubleUpDownCounter counter = registry.CreateDoubleUpDownCounter("test.double.updown.exact");
        DoubleUpDownCounterSeries series = counter.Bind(s_tag);
        ConcurrentWriters.Run(
            Threads,
            index =>
            {
                double up = index % 2 == 0 ? 0.75 : 0.25;
                double down = index % 2 == 0 ? 0.25 : 1.5;
                for (int i = 0; i < RecordsPerThread; i++)
                {
                    if (bound)
                    {
                        series.Add(up);
                        series.Add(-down);
                    }
                    else
                    {
                        counter.Add(up, s_tag);
                        counter.Add(-down, s_tag);
                    }
                }
            },
            whileRunning: () => _ = series.Read() + Assert.Single(counter.Collect()).Value);

        double expected = Enumerable.Range(0, Threads).Sum(t => (t % 2 == 0 ? 0.5 : -1.25) * RecordsPerThread);
        Assert.Equal(expected, series.Read());
        Assert.Equal(expected, Assert.Single(counter.Collect()).Value);
    }

    [StorageTheory]
    [MemberData(nameof(Storages.AllBoundAndUnbound), MemberType = typeof(Storages))]
    public void DoubleCounterIsExactAndNeverGoesDownWhileReadsRun(string storage, bool bound)
    {
        var registry = new MetricRegistry(Storages.Options(storage));
        PartitionedDoubleCounter counter = registry.CreateDoubleCounter("test.double.exact", "By");
        DoubleCounterSeries series = counter.Bind(s_tag);
        double previous = 0;
        ConcurrentWriters.Run(
            Threads,
            _ =>
            {
                for (int i = 0; i < RecordsPerThread; i++)
                {
                    if (bound)
                    {
                        series.Add(0.25 * (i % 4));
                    }
                    else
                    {
                        counter.Add(0.25 * (i % 4), s_tag);
                    }
                }
            },
            whileRunning: () =>
            {
                double current = Assert.Single(counter.Collect()).Value;
                Assert.True(current >= previous, $"Collected {current} after {previous}.");
                previous = current;
            });

        double expected = Threads * (RecordsPerThread / 4) * 1.5;
        Assert.Equal(expected, series.Read());
        Assert.Equal(expected, Assert.Single(counter.Collect()).Value);
    }

    [StorageTheory]
    [MemberData(nameof(Storages.AllBoundAndUnbound), MemberType = typeof(Storages))]
    public void OperationDataWithBucketsCountsEveryOperationInItsBucket(string storage, bool bound)
    {
        var registry = new MetricRegistry(Storages.Options(storage));
        OperationData operation = registry.CreateOperationData("test.operation.buckets", boundaries: [0.001, 0.01, 0.1]);
        OperationSeries series = operation.Bind(s_tag);
        long millisecond = (long)Math.Floor(0.001 * System.Diagnostics.Stopwatch.Frequency);

        // One in each bucket: at the first boundary, just past it, a second, and past the last boundary.
        long[] cycle = [millisecond, millisecond + 1, (long)Math.Floor(0.05 * System.Diagnostics.Stopwatch.Frequency), System.Diagnostics.Stopwatch.Frequency];
        long[] previous = new long[4];
        ConcurrentWriters.Run(
            Threads,
            _ =>
            {
                for (int i = 0; i < RecordsPerThread; i++)
                {
                    if (bound)
                    {
                        series.RecordElapsedTicks(cycle[i % 4]);
                    }
                    else
                    {
                        operation.Record(TimeSpan.FromTicks(0), s_tag);
                    }
                }
            },
            whileRunning: () =>
            {
                OperationReading reading = Assert.Single(operation.Collect());
                Assert.NotNull(reading.BucketCounts);
                Assert.Equal(reading.BucketCounts.Sum(), reading.Count);
                for (int i = 0; i < previous.Length; i++)
                {
                    Assert.True(reading.BucketCounts[i] >= previous[i]);
                    previous[i] = reading.BucketCounts[i];
                }
            });

        long total = (long)Threads * RecordsPerThread;
        foreach (OperationReading reading in new[] { series.Read(), Assert.Single(operation.Collect()) })
        {
            Assert.Equal(total, reading.Count);
            if (bound)
            {
                Assert.Equal([total / 4, total / 4, total / 4, total / 4], reading.BucketCounts!);
                Assert.Equal(total / 4 * cycle.Sum(), reading.ElapsedTimestampTicks);
            }
            else
            {
                Assert.Equal([total, 0L, 0, 0], reading.BucketCounts!);
                Assert.Equal(0, reading.ElapsedTimestampTicks);
            }
        }
    }

    // In every read: Count is the sum of the buckets, and no bucket went down since the read before.
    private static void AssertConsistent(HistogramReading reading, long[] previous)
    {
        Assert.Equal(reading.BucketCounts.Sum(), reading.Count);
        for (int i = 0; i < previous.Length; i++)
        {
            Assert.True(reading.BucketCounts[i] >= previous[i], $"Bucket {i} read {reading.BucketCounts[i]} after {previous[i]}.");
            previous[i] = reading.BucketCounts[i];
        }

        // Every partial sum is a multiple of 0.25.
        Assert.Equal(0, reading.Sum * 4 % 1);
    }
}
