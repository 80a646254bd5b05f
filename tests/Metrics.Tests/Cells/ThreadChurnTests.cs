using ScalableMetrics.Cells;

namespace ScalableMetrics.Tests.Cells;

/// <summary>Thread indexes are process-wide: these tests count them, so no other test may take any meanwhile.</summary>
[Collection(ProcessWideStateCollection.Name)]
public class ThreadChurnTests
{
    [Fact]
    public void ShortLivedThreadsAreCountedExactlyAndTheirCellsAreReused()
    {
        var registry = new MetricRegistry(new MetricRegistryOptions { Strategy = PartitionStrategy.PerThread, SeriesStorage = SeriesStorage.PerPartition });
        CounterSeries series = registry.CreateCounter("test.churn").Bind();
        const int Threads = 3_200;
        const int AddsPerThread = 100;
        const int Concurrent = 16;
        int indexesBefore = ThreadLease.IndexCount;

        for (int started = 0; started < Threads; started += Concurrent)
        {
            ConcurrentWriters.Run(Concurrent, _ =>
            {
                for (int i = 0; i < AddsPerThread; i++)
                {
                    series.Add(1);
                }
            });
        }

        // Indexes of ended threads go to later threads, which add on to their slots: far fewer
        // indexes were handed out than threads ran (3,200), the series' slots together span
        // fewer than 4 regions per index (region counts at least double when they grow), and
        // nothing was lost in the hand-overs.
        Assert.InRange(ThreadLease.IndexCount - indexesBefore, 0, Threads / 10);
        Assert.InRange(series.TotalRegionCount, 1, (4 * Math.Max(ThreadLease.IndexCount, series.Slots.Chunk.Arena.RegionCount / 2)) - 1);
        Assert.Equal((long)Threads * AddsPerThread, series.Read());
        Assert.Equal((long)Threads * AddsPerThread, series.Read());

        // The region bound above is against the arena's own region count, which grows with the
        // series: bound by what the arena was asked to cover instead, the indexes handed out or
        // the processors (a per-thread registry starts with a region per processor at least).
        Assert.InRange(series.TotalRegionCount, 1, (4 * Math.Max(ThreadLease.IndexCount, Environment.ProcessorCount)) - 1);

        // The reuse itself, read in the slots rather than inferred from the counts above: without
        // it every thread would have added its 100 into a region of its own, 3,200 of them; with
        // it the adds sit in a few regions, each holding the adds of many threads one after another.
        (int regionsWritten, long mostInOneRegion) = WrittenRegions(series);
        Assert.InRange(regionsWritten, 1, Threads / 10);
        Assert.True(mostInOneRegion >= 2 * AddsPerThread, $"no region holds the adds of two threads (at most {mostInOneRegion})");
    }

    // The regions of every generation of the series' chunk that its slot was added to, and the most one holds.
    private static unsafe (int Written, long Most) WrittenRegions(CounterSeries series)
    {
        SlotRange slots = series.Slots;
        (int written, long most) = (0, 0);
        for (ArenaChunk? generation = slots.Chunk.FirstGeneration; generation is not null; generation = generation.Successor)
        {
            for (int region = 0; region < generation.RegionCount; region++)
            {
                long value = *generation.SlotAddress(region, slots.FirstSlot);
                written += value != 0 ? 1 : 0;
                most = Math.Max(most, value);
            }
        }

        return (written, most);
    }

    [Fact]
    public void AddsToOutgrownSlotsStillCount()
    {
        var registry = new MetricRegistry(new MetricRegistryOptions { Strategy = PartitionStrategy.PerThread, SeriesStorage = SeriesStorage.PerPartition });
        CounterSeries series = registry.CreateCounter("test.grow").Bind();
        series.Add(5);
        int regionsBefore = series.TotalRegionCount;

        // More threads holding an index at once than the first slots have regions: at least 32
        // get indexes past them, so the series moves to slots with more regions while others add.
        int concurrent = regionsBefore + 32;
        const int AddsPerThread = 10_000;
        using var allHoldAnIndex = new Barrier(concurrent);
        ConcurrentWriters.Run(concurrent, _ =>
        {
            series.Add(1);
            allHoldAnIndex.SignalAndWait();
            for (int i = 1; i < AddsPerThread; i++)
            {
                series.Add(1);
            }
        });

        Assert.True(series.TotalRegionCount > regionsBefore, $"the regions did not grow past {regionsBefore}");
        Assert.Equal(5 + ((long)concurrent * AddsPerThread), series.Read());
        series.Add(5);
        Assert.Equal(10 + ((long)concurrent * AddsPerThread), series.Read());
    }

    [Fact]
    public void ThreadsThatLiveOneAfterAnotherLeaveThePerThreadRegionCountBounded()
    {
        // Two registries: one created before the threads run, one after; per-thread regions are
        // sized by the thread indexes handed out, which ended threads give back.
        var before = new MetricRegistry(new MetricRegistryOptions { Strategy = PartitionStrategy.PerThread, SeriesStorage = SeriesStorage.PerPartition });
        CounterSeries series = before.CreateCounter("test.sequential").Bind();
        const int Threads = 256;
        for (int t = 0; t < Threads; t++)
        {
            var thread = new Thread(() => series.Add(1));
            thread.Start();
            thread.Join();
        }

        // Without reuse, 256 threads would have taken 256 indexes and the series 256 regions or
        // more. With it the index table stays within twice the peak of live writers plus 64 (the
        // sweep's bound; live writers here: this thread and the test runner's few).
        Assert.Equal(Threads, series.Read());
        Assert.InRange(ThreadLease.IndexCount, 1, Threads / 2);
        Assert.InRange(series.TotalRegionCount, 1, Threads - 1);
        var after = new MetricRegistry(new MetricRegistryOptions { Strategy = PartitionStrategy.PerThread, SeriesStorage = SeriesStorage.PerPartition });
        Assert.InRange(after.PartitionCount, 1, Math.Max(Threads / 2, Environment.ProcessorCount));
    }

    [Fact]
    public void AddsRacingAMoveToWiderRegionsLandExactlyOnce()
    {
        // Writers that hold an index add without pause while later threads, each with an index
        // past the regions, move the series to a wider generation: the move publishes the new
        // slot pointer before the new region count, so an add reads either both old, the old
        // count with the new pointer, or both new, and lands once in a slot that reads sum.
        var registry = new MetricRegistry(new MetricRegistryOptions { Strategy = PartitionStrategy.PerThread, SeriesStorage = SeriesStorage.PerPartition });
        CounterSeries counter = registry.CreateCounter("test.race.move").Bind();
        OperationSeries operation = registry.CreateOperationData("test.race.move.op").Bind();
        const int Writers = 2;
        const int LateThreads = 96;
        long written = 0;
        using var stop = new ManualResetEventSlim();
        var writers = Enumerable.Range(0, Writers).Select(_ => new Thread(() =>
        {
            long mine = 0;
            while (!stop.IsSet)
            {
                counter.Increment();
                operation.RecordElapsedTicks(1);
                mine++;
            }

            Interlocked.Add(ref written, mine);
        })).ToArray();
        foreach (Thread writer in writers)
        {
            writer.Start();
        }

        // Late threads live at once (each keeps its index, so each is past the ones before).
        using var allDone = new CountdownEvent(LateThreads);
        using var release = new ManualResetEventSlim();
        var late = Enumerable.Range(0, LateThreads).Select(_ => new Thread(() =>
        {
            counter.Increment();
            operation.RecordElapsedTicks(1);
            allDone.Signal();
            release.Wait();
        })).ToArray();
        foreach (Thread thread in late)
        {
            thread.Start();
            Thread.Sleep(1);
        }

        allDone.Wait();
        stop.Set();
        release.Set();
        foreach (Thread thread in writers.Concat(late))
        {
            thread.Join();
        }

        Assert.True(counter.TotalRegionCount > LateThreads, $"the regions did not grow past {LateThreads} ({counter.TotalRegionCount})");
        Assert.Equal(written + LateThreads, counter.Read());
        OperationReading reading = operation.Read();
        Assert.Equal(written + LateThreads, reading.Count);
        Assert.Equal(written + LateThreads, reading.ElapsedTimestampTicks);
    }
}
