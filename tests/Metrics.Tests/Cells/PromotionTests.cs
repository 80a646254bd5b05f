using System.Globalization;
using ScalableMetrics.Tests.Shared;

namespace ScalableMetrics.Tests.Cells;

/// <summary>
/// Series that start compact (<see cref="SeriesStorage.Adaptive"/>): one copy until two threads
/// write it often, then a copy per partition beside the compact one, exact through the change.
/// </summary>
public class PromotionTests
{
    private const int AddsPerThread = 200_000;

    [StorageTheory]
    [MemberData(nameof(Storages.Adaptive), MemberType = typeof(Storages))]
    public void SeriesWrittenByOneThreadStayCompactAndTakeNoPartitionSlots(string storage)
    {
        MetricRegistryOptions options = Storages.Options(storage);
        options.PartitionCount = 192;
        var registry = new MetricRegistry(options);
        PartitionedCounter counter = registry.CreateCounter("test.compact");
        CounterSeries[] series = [.. Enumerable.Range(0, 1_000).Select(i => counter.Bind(new KeyValuePair<string, object?>("i", i)))];

        for (int round = 0; round < 100; round++)
        {
            foreach (CounterSeries one in series)
            {
                one.Add(2);
            }
        }

        Assert.All(series, one => Assert.True(one.IsCompact));
        Assert.All(series, one => Assert.Equal(200, one.Read()));
        Assert.Equal(200L * series.Length, counter.Collect().Sum(reading => reading.Value));
        Assert.Equal(0, registry.PromotedSeriesCount);

        // No per-partition slots at all: at 192 partitions those would take 1,000 × 8 × 193 bytes.
        Assert.Equal(0, registry.Arena.ReservedBytes);
        Assert.InRange(registry.SlotBytes, 1, 3 * 8 * series.Length);
    }

    [StorageTheory]
    [MemberData(nameof(Storages.Adaptive), MemberType = typeof(Storages))]
    public void TwoWritersOnOneSeriesPromoteItAndItsNeighbourStaysCompact(string storage)
    {
        var registry = new MetricRegistry(Storages.Options(storage));
        PartitionedCounter counter = registry.CreateCounter("test.contended");
        CounterSeries contended = counter.Bind(new KeyValuePair<string, object?>("s", "contended"));
        CounterSeries alone = counter.Bind(new KeyValuePair<string, object?>("s", "alone"));

        // The write-rate rule needs two crossings (about 1,024 adds apart) by different threads within
        // its window: both write until one of them sees the series promoted, bounded (a few thousand
        // adds where both run; taking turns on a busy machine, within a few time slices).
        const long MaxAddsPerThread = 100_000_000;
        long[] adds = new long[2];
        ConcurrentWriters.Run(2, thread =>
        {
            long count = 0;
            while (contended.IsCompact && count < MaxAddsPerThread)
            {
                for (int i = 0; i < 64; i++)
                {
                    contended.Increment();
                }

                count += 64;
            }

            adds[thread] = count;
        });
        alone.Add(3);
        long expected = adds.Sum();

        Assert.False(contended.IsCompact, "two writers never crossed the compact slot one after the other in their bounded run");
        Assert.True(alone.IsCompact);
        Assert.Equal(1, registry.PromotedSeriesCount);
        Assert.Equal(expected, contended.Read());
        Assert.Equal(expected, counter.Collect().Single(reading => reading.Tags[0].Value is "contended").Value);

        // Promoted: its adds now go to the registry's write path, and both copies are read.
        contended.Add(5);
        Assert.Equal(expected + 5, contended.Read());
        Assert.Equal(registry.WritePath, contended.WritePath);
    }

    [StorageTheory]
    [MemberData(nameof(Storages.Adaptive), MemberType = typeof(Storages))]
    public void OneThreadWritingFastKeepsItsSeriesCompact(string storage)
    {
        var registry = new MetricRegistry(Storages.Options(storage));
        CounterSeries series = registry.CreateCounter("test.one.writer").Bind();
        HistogramSeries histogram = registry.CreateHistogram("test.one.writer.histogram", boundaries: [1]).Bind();

        // Hundreds of crossings of the compact slots, all by this thread, within the window.
        for (int i = 0; i < 1_000_000; i++)
        {
            series.Increment();
            histogram.Record(2 * (i & 1));
        }

        Assert.True(series.IsCompact);
        Assert.True(histogram.IsCompact);
        Assert.Equal(0, registry.PromotedSeriesCount);
        Assert.Equal(1_000_000, series.Read());
        Assert.Equal([500_000L, 500_000L], histogram.Read().BucketCounts);
    }

    [StorageTheory]
    [MemberData(nameof(Storages.Adaptive), MemberType = typeof(Storages))]
    public void TwoThreadsTakingTurnsPromoteTheSeriesThoughTheyNeverMeet(string storage)
    {
        var registry = new MetricRegistry(Storages.Options(storage));
        CounterSeries series = registry.CreateCounter("test.turns").Bind();
        long turns = AddInTurnsUntilPromoted(series);

        Assert.False(series.IsCompact, $"still compact after {turns} turns of {AddsPerTurn} adds");
        Assert.Equal(1, registry.PromotedSeriesCount);
        Assert.Equal(turns * AddsPerTurn, series.Read());
    }

    [StorageTheory]
    [MemberData(nameof(Storages.Adaptive), MemberType = typeof(Storages))]
    public void ASeriesThatKeepsExemplarsIsPromotedByTheWriteRateRuleAndKeepsSampling(string storage)
    {
        // A sampled series' storage route is kept by its reservoir, its route stays Sampled: the
        // rule must still see it compact, promote it, and its adds after that still be offered.
        MetricRegistryOptions options = Storages.Options(storage);
        options.ExemplarFilter = ExemplarFilter.AlwaysOn;
        var registry = new MetricRegistry(options);
        PartitionedCounter counter = registry.CreateCounter("test.sampled.turns");
        CounterSeries series = counter.Bind();
        long turns = AddInTurnsUntilPromoted(series);

        Assert.False(series.IsCompact, $"still compact after {turns} turns of {AddsPerTurn} adds");
        Assert.Equal(1, registry.PromotedSeriesCount);

        // Later than every exemplar the turns left, by more than the clock's resolution.
        Thread.Sleep(2);
        series.Add(7);
        CounterReading reading = Assert.Single(counter.Collect());
        Assert.Equal((turns * AddsPerTurn) + 7, reading.Value);
        Assert.Equal(7, Assert.NotNull(reading.Exemplar).Value);
    }

    [StorageTheory]
    [MemberData(nameof(Storages.Adaptive), MemberType = typeof(Storages))]
    public void ACompactCounterPastLongMaxValueReadsLongMaxValueThroughEveryAdd(string storage)
    {
        MetricRegistryOptions options = Storages.Options(storage);
        options.MaxPromotedBytes = 0;
        var registry = new MetricRegistry(options);
        PartitionedCounter counter = registry.CreateCounter("test.saturated");
        CounterSeries series = counter.Bind();
        series.Add(long.MaxValue - 1_000);

        // Atomic adds below 2^32 carry the compact slot past long.MaxValue; every read after says
        // long.MaxValue, never less, and adds of every size keep it there.
        long expected = long.MaxValue - 1_000;
        for (int i = 0; i < 5_000; i++)
        {
            series.Add(i % 3);
            expected = expected > long.MaxValue - (i % 3) ? long.MaxValue : expected + (i % 3);
            Assert.Equal(expected, series.Read());
        }

        Assert.Equal(long.MaxValue, expected);

        series.Add(uint.MaxValue);
        series.Add(long.MaxValue);
        series.Increment();
        Assert.True(series.IsCompact);
        Assert.Equal(long.MaxValue, series.Read());
        Assert.Equal(long.MaxValue, counter.Collect().Single().Value);
    }

    public static TheoryData<string, string> AdaptiveStoragesAndKinds
    {
        get
        {
            var data = new TheoryData<string, string>();
            foreach (string storage in (IEnumerable<string>)[Storages.AdaptiveRestartable, Storages.AdaptiveInterlocked, Storages.AdaptivePerThread])
            {
                foreach (string kind in (IEnumerable<string>)["counter", "double-counter", "up-down-counter", "histogram", "exponential-histogram", "operation"])
                {
                    data.Add(storage, kind);
                }
            }

            return data;
        }
    }

    [StorageTheory]
    [MemberData(nameof(AdaptiveStoragesAndKinds))]
    public void PromotionMidwayWithAReaderThroughoutLosesNothingAndNoReadGoesDown(string storage, string kind)
    {
        var registry = new MetricRegistry(Storages.Options(storage));
        const int Threads = 4;
        const int Adds = 50_000;
        (Action add, Func<double> read, Func<double> collect, Action promote) = Workload(registry, kind);
        using var readerStop = new CancellationTokenSource();
        Exception? readerFailure = null;
        var reader = new Thread(() =>
        {
            try
            {
                double previous = 0;
                while (!readerStop.IsCancellationRequested)
                {
                    double collected = collect();
                    double current = read();
                    Assert.True(collected >= previous, $"Collected {collected} after {previous}.");
                    Assert.True(current >= collected, $"Read {current} after collecting {collected}.");
                    previous = current;
                }
            }
            catch (Exception e)
            {
                readerFailure = e;
            }
        });
        reader.Start();

        // Promotion forced midway by one of the writers, whatever the others' swaps did.
        ConcurrentWriters.Run(Threads, thread =>
        {
            for (int i = 0; i < Adds; i++)
            {
                if (thread == 0 && i == Adds / 2)
                {
                    promote();
                }

                add();
            }
        });
        readerStop.Cancel();
        reader.Join();

        Assert.Null(readerFailure);
        Assert.Equal((double)Threads * Adds, read());
        Assert.Equal((double)Threads * Adds, collect());
        Assert.True(registry.PromotedSeriesCount >= 1);
    }

    [StorageTheory]
    [MemberData(nameof(Storages.Adaptive), MemberType = typeof(Storages))]
    public void PastThePromotionBudgetAContendedSeriesStaysCompactAndExact(string storage)
    {
        MetricRegistryOptions options = Storages.Options(storage);
        options.MaxPromotedBytes = 0;
        var registry = new MetricRegistry(options);
        CounterSeries series = registry.CreateCounter("test.budget").Bind();
        Assert.False(series.TryPromote());

        ConcurrentWriters.Run(2, _ =>
        {
            for (int i = 0; i < AddsPerThread; i++)
            {
                series.Increment();
            }
        });

        Assert.True(series.IsCompact);
        Assert.Equal(0, registry.PromotedSeriesCount);
        Assert.Equal(0, registry.Arena.ReservedBytes);
        Assert.Equal(2L * AddsPerThread, series.Read());
    }

    [Fact]
    public void TheBudgetCountsEachPromotedSeriesSlotsInEveryRegion()
    {
        var registry = new MetricRegistry(new MetricRegistryOptions { UseRestartableSequences = false, PartitionCount = 8, MaxPromotedBytes = 3 * 8 * 8 });
        PartitionedCounter counter = registry.CreateCounter("test.budget");
        CounterSeries[] series = [.. Enumerable.Range(0, 4).Select(i => counter.Bind(new KeyValuePair<string, object?>("i", i)))];

        // Room for three one-slot series in eight regions; the fourth stays compact.
        Assert.Equal([true, true, true, false], series.Select(one => one.TryPromote()));
        Assert.Equal(3, registry.PromotedSeriesCount);
    }

    [Fact]
    public void CompactStorageNeverPromotesAndPerPartitionStorageStartsPerPartition()
    {
        var compact = new MetricRegistry(new MetricRegistryOptions { SeriesStorage = SeriesStorage.Compact });
        CounterSeries compactSeries = compact.CreateCounter("test.compact").Bind();
        Assert.False(compactSeries.TryPromote());
        Assert.True(compactSeries.IsCompact);
        Assert.Equal(SeriesStorage.Compact, compact.SeriesStorage);

        var perPartition = new MetricRegistry(new MetricRegistryOptions { SeriesStorage = SeriesStorage.PerPartition });
        CounterSeries perPartitionSeries = perPartition.CreateCounter("test.per-partition").Bind();
        Assert.False(perPartitionSeries.IsCompact);
        Assert.False(perPartitionSeries.HasCompactSlots);
        Assert.Equal(0, perPartition.Arena.Compact.ReservedBytes);
        Assert.Equal(0, perPartition.PromotedSeriesCount);

        Assert.Equal(SeriesStorage.Adaptive, new MetricRegistry().SeriesStorage);
    }

    [StorageTheory]
    [MemberData(nameof(Storages.Adaptive), MemberType = typeof(Storages))]
    public void ACollectionOfCompactAndPromotedSeriesReadsEachExactly(string storage)
    {
        var registry = new MetricRegistry(Storages.Options(storage));
        PartitionedHistogram histogram = registry.CreateHistogram("test.mixed", boundaries: [1, 10]);
        PartitionedUpDownCounter upDown = registry.CreateUpDownCounter("test.mixed.updown");
        HistogramSeries[] series = [.. Enumerable.Range(0, 6).Select(i => histogram.Bind(new KeyValuePair<string, object?>("i", i)))];
        UpDownCounterSeries[] upDownSeries = [.. Enumerable.Range(0, 6).Select(i => upDown.Bind(new KeyValuePair<string, object?>("i", i)))];
        for (int i = 0; i < series.Length; i++)
        {
            series[i].Record(0.5 + i);
            upDownSeries[i].Add(-i);
            if (i % 2 == 1)
            {
                Assert.True(series[i].TryPromote());
                Assert.True(upDownSeries[i].TryPromote());
            }

            series[i].Record(20.0);
            upDownSeries[i].Add(2 * i);
        }

        IReadOnlyList<HistogramReading> readings = histogram.Collect();
        IReadOnlyList<LongReading> upDownReadings = upDown.Collect();
        for (int i = 0; i < series.Length; i++)
        {
            long[] expectedCounts = [0.5 + i <= 1 ? 1 : 0, 0.5 + i is > 1 and <= 10 ? 1 : 0, 1];
            HistogramReading reading = readings.Single(r => Equals(r.Tags[0].Value?.ToString(), i.ToString(CultureInfo.InvariantCulture)));
            Assert.Equal(expectedCounts, reading.BucketCounts);
            Assert.Equal(20.5 + i, reading.Sum);
            Assert.Equal(expectedCounts, series[i].Read().BucketCounts);
            Assert.Equal(i, upDownReadings.Single(r => Equals(r.Tags[0].Value?.ToString(), i.ToString(CultureInfo.InvariantCulture))).Value);
            Assert.Equal(i, upDownSeries[i].Read());
            Assert.Equal(i % 2 == 1, !series[i].IsCompact);
        }
    }

    [StorageTheory]
    [MemberData(nameof(Storages.Adaptive), MemberType = typeof(Storages))]
    public void ABucketedOperationSeriesReadsBothCopiesAfterPromotion(string storage)
    {
        var registry = new MetricRegistry(Storages.Options(storage));
        OperationData operation = registry.CreateOperationData("test.operation", boundaries: [0.5]);
        OperationSeries series = operation.Bind();
        series.Record(TimeSpan.FromSeconds(0.25));
        Assert.True(series.TryPromote());
        series.Record(TimeSpan.FromSeconds(2));
        series.Record(TimeSpan.FromSeconds(0.25));

        OperationReading reading = series.Read();
        Assert.Equal(3, reading.Count);
        Assert.Equal(reading.Count, operation.Collect().Single().Count);
    }

    [Fact]
    public void AStorageOrBudgetOutOfRangeIsRefusedWithTheOptionsName()
    {
        ArgumentOutOfRangeException storage = Assert.Throws<ArgumentOutOfRangeException>(() => new MetricRegistry(new MetricRegistryOptions { SeriesStorage = (SeriesStorage)7 }));
        Assert.Contains(nameof(MetricRegistryOptions.SeriesStorage), storage.Message, StringComparison.Ordinal);
        ArgumentOutOfRangeException budget = Assert.Throws<ArgumentOutOfRangeException>(() => new MetricRegistry(new MetricRegistryOptions { MaxPromotedBytes = -1 }));
        Assert.Contains(nameof(MetricRegistryOptions.MaxPromotedBytes), budget.Message, StringComparison.Ordinal);
    }

    // An instrument of the kind with one series: its add, its series' read and its collection (as
    // one number: a count, a total), and its promotion.
    private const int AddsPerTurn = 3_000;

    // Two threads add to the series one at a time, handing over after each turn of AddsPerTurn
    // adds: no two adds ever race on the slot, yet two threads write it often, and their crossings
    // alternate. Until the series is promoted, or 1,000 turns; returns the turns taken.
    private static long AddInTurnsUntilPromoted(CounterSeries series)
    {
        const int MaxTurns = 1_000;
        using var first = new SemaphoreSlim(1);
        using var second = new SemaphoreSlim(0);
        long turns = 0;
        ConcurrentWriters.Run(2, thread =>
        {
            (SemaphoreSlim mine, SemaphoreSlim theirs) = thread == 0 ? (first, second) : (second, first);
            while (true)
            {
                mine.Wait();
                if (!series.IsCompact || Volatile.Read(ref turns) >= MaxTurns)
                {
                    theirs.Release();
                    return;
                }

                for (int i = 0; i < AddsPerTurn; i++)
                {
                    series.Increment();
                }

                Interlocked.Increment(ref turns);
                theirs.Release();
            }
        });
        return turns;
    }

    private static (Action Add, Func<double> Read, Func<double> Collect, Action Promote) Workload(MetricRegistry registry, string kind)
    {
        switch (kind)
        {
            case "counter":
                PartitionedCounter counter = registry.CreateCounter("test.kind");
                CounterSeries counterSeries = counter.Bind();
                return (counterSeries.Increment, () => counterSeries.Read(), () => counter.Collect().Single().Value, () => counterSeries.TryPromote());
            case "double-counter":
                PartitionedDoubleCounter doubleCounter = registry.CreateDoubleCounter("test.kind");
                DoubleCounterSeries doubleSeries = doubleCounter.Bind();
                return (() => doubleSeries.Add(1.0), () => doubleSeries.Read(), () => doubleCounter.Collect().Single().Value, () => doubleSeries.TryPromote());
            case "up-down-counter":
                PartitionedUpDownCounter upDown = registry.CreateUpDownCounter("test.kind");
                UpDownCounterSeries upDownSeries = upDown.Bind();
                return (() => upDownSeries.Add(1), () => upDownSeries.Read(), () => upDown.Collect().Single().Value, () => upDownSeries.TryPromote());
            case "histogram":
                PartitionedHistogram histogram = registry.CreateHistogram("test.kind", boundaries: [0.5]);
                HistogramSeries histogramSeries = histogram.Bind();
                return (() => histogramSeries.Record(1.0), () => histogramSeries.Read().BucketCounts.Sum(), () => histogram.Collect().Single().BucketCounts.Sum(), () => histogramSeries.TryPromote());
            case "exponential-histogram":
                PartitionedExponentialHistogram exponential = registry.CreateExponentialHistogram("test.kind");
                ExponentialHistogramSeries exponentialSeries = exponential.Bind();
                return (() => exponentialSeries.Record(1.0), () => exponentialSeries.Read().Count, () => exponential.Collect().Single().Count, () => exponentialSeries.TryPromote());
            default:
                OperationData operation = registry.CreateOperationData("test.kind");
                OperationSeries operationSeries = operation.Bind();
                return (() => operationSeries.RecordElapsedTicks(1), () => operationSeries.Read().Count, () => operation.Collect().Single().Count, () => operationSeries.TryPromote());
        }
    }
}
