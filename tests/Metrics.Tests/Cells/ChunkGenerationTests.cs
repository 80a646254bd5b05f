using System.Runtime.CompilerServices;
using ScalableMetrics.Cells;
using ScalableMetrics.Tests.SeriesTables;

namespace ScalableMetrics.Tests.Cells;

/// <summary>
/// Per thread, a chunk whose regions run out of thread indexes gets a successor shared by all its
/// series; thread indexes are process-wide, so these tests share the process-wide collection.
/// </summary>
[Collection(ProcessWideStateCollection.Name)]
public unsafe class ChunkGenerationTests
{
    [Fact]
    public void SeriesOfAChunkMoveToOneSuccessorAtTheirOwnOffsetsAndOutgrownSlotsStillCount()
    {
        var registry = new MetricRegistry(new MetricRegistryOptions { Strategy = PartitionStrategy.PerThread, SeriesStorage = SeriesStorage.PerPartition });
        PartitionedCounter counter = registry.CreateCounter("test.generations");
        CounterSeries first = counter.Bind(new KeyValuePair<string, object?>("s", 1));
        CounterSeries second = counter.Bind(new KeyValuePair<string, object?>("s", 2));
        ArenaChunk outgrown = first.Slots.Chunk;
        Assert.Same(outgrown, second.Slots.Chunk);

        // More threads holding an index at once than the chunk has regions: some hold one past them.
        int concurrent = outgrown.RegionCount + 4;
        using var allHoldAnIndex = new Barrier(concurrent);
        ConcurrentWriters.Run(concurrent, _ =>
        {
            first.Add(1);
            allHoldAnIndex.SignalAndWait();
            first.Add(1);
            second.Add(1);
        });

        // One successor for both series, each at its first offset; the first generation kept.
        ArenaChunk current = first.Slots.Chunk;
        Assert.NotSame(outgrown, current);
        Assert.Same(outgrown, current.FirstGeneration);
        Assert.Same(current, second.Slots.Chunk);
        Assert.Equal(outgrown.Index, current.Index);
        Assert.Equal(0, first.Slots.FirstSlot);
        Assert.Equal(1, second.Slots.FirstSlot);
        Assert.True(current.RegionCount >= concurrent);

        // A writer that read the outgrown chunk before the move adds to it: still counted, once,
        // and by the series whose offset it is only.
        *outgrown.ThreadSlot(0, 0) += 7;
        Assert.Equal((2L * concurrent) + 7, first.Read());
        Assert.Equal(concurrent, second.Read());
        Assert.Equal([(2L * concurrent) + 7, concurrent], counter.Collect().Select(r => r.Value));
    }

    [Fact]
    public void ReclaimingAPromotedSeriesWhoseChunkWidenedGivesTheBudgetBackOnlyWhatItsPromotionTook()
    {
        // Room for one one-slot series in the one region the registry starts with.
        var registry = new MetricRegistry(new MetricRegistryOptions { Strategy = PartitionStrategy.PerThread, SeriesStorage = SeriesStorage.Adaptive, PartitionCount = 1, MaxPromotedBytes = 8 });
        PartitionedCounter counter = registry.CreateCounter("test.budget.generations");
        PromoteWidenAndRemove(counter);
        int regions = registry.Arena.RegionCount;
        Assert.True(regions >= 2, $"the chunk was not widened ({regions} regions)");
        RemovalTests.CollectGarbage();
        counter.Collect();
        Assert.Equal((0, 1L, 0L), counter.Removals);

        // The reclaim gave back the 8 bytes its promotion took: a series of one slot in the
        // registry's regions now takes 8 × regions bytes, more than the whole budget, and stays compact.
        CounterSeries next = counter.Bind(new KeyValuePair<string, object?>("s", "next"));
        Assert.False(next.TryPromote(), $"a series of {8 * regions} bytes was promoted under MaxPromotedBytes = 8");
    }

    [Fact]
    public void AWideningIsChargedAndOnlyAWideningTakesThePromotedCopiesPastTheBudget()
    {
        // Room for one one-slot series in the one region the registry starts with: promoted, it
        // fills the budget.
        var registry = new MetricRegistry(new MetricRegistryOptions { Strategy = PartitionStrategy.PerThread, SeriesStorage = SeriesStorage.Adaptive, PartitionCount = 1, MaxPromotedBytes = 8 });
        PartitionedCounter counter = registry.CreateCounter("test.budget.widened");
        CounterSeries series = counter.Bind(new KeyValuePair<string, object?>("s", "widened"));
        Assert.True(series.TryPromote());
        Assert.Equal(8, registry.Arena.PromotedBytes);

        // A writer must get a slot: the copies a wider generation adds are not refused, but
        // charged, so the budget counts what the promoted series holds, past MaxPromotedBytes.
        WriteFromTwoThreadsAtOnce(series);
        Assert.Equal(2, series.Read());
        long held = 8L * series.TotalRegionCount;
        Assert.True(held > 8, $"the chunk was not widened ({series.TotalRegionCount} regions)");
        Assert.Equal(held, registry.Arena.PromotedBytes);

        // Spent, the budget refuses every promotion (until frees bring it back under).
        CounterSeries next = counter.Bind(new KeyValuePair<string, object?>("s", "next"));
        Assert.False(next.TryPromote(), $"a series was promoted with {registry.Arena.PromotedBytes} bytes promoted under MaxPromotedBytes = 8");
        Assert.True(next.IsCompact);
        Assert.Equal(held, registry.Arena.PromotedBytes);
        Assert.Equal(1, registry.PromotedSeriesCount);
    }

    [Fact]
    public void AWideningChargesThePromotedSlotsOfItsChunkNotTheFreeOnesAndAPromotionTakesWhatItsRangeHolds()
    {
        var registry = new MetricRegistry(new MetricRegistryOptions { Strategy = PartitionStrategy.PerThread, SeriesStorage = SeriesStorage.Adaptive, PartitionCount = 1, MaxPromotedBytes = 1 << 20 });
        PartitionedCounter counter = registry.CreateCounter("test.budget.exact");
        CounterSeries kept = counter.Bind(new KeyValuePair<string, object?>("s", "kept"));
        Assert.True(kept.TryPromote());

        // A second series of the chunk, promoted and reclaimed: its slot is free, its bytes back.
        PromoteAndRemove(counter);
        Assert.Equal(16, registry.Arena.PromotedBytes);
        RemovalTests.CollectGarbage();
        counter.Collect();
        Assert.Equal((0, 1L, 0L), counter.Removals);
        Assert.Equal(8, registry.Arena.PromotedBytes);

        // The widening charges the chunk's one promoted slot in the regions it adds, not the free one.
        WriteFromTwoThreadsAtOnce(kept);
        int regions = kept.TotalRegionCount;
        Assert.True(regions > 1, $"the chunk was not widened ({regions} regions)");
        Assert.Equal(8L * regions, registry.Arena.PromotedBytes);

        // A promotion into the free slot takes what it holds there: its slot in every generation.
        CounterSeries reuse = counter.Bind(new KeyValuePair<string, object?>("s", "reuse"));
        Assert.True(reuse.TryPromote());
        Assert.Same(kept.Slots.Chunk.FirstGeneration, reuse.Slots.Chunk.FirstGeneration);
        Assert.Equal(regions, reuse.TotalRegionCount);
        Assert.Equal(16L * regions, registry.Arena.PromotedBytes);
    }

    // Not inlined, so that no local of the caller keeps the series alive: promoted, written by two
    // threads holding an index at once (one past the one region: the chunk widens), removed, exported.
    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void PromoteWidenAndRemove(PartitionedCounter counter)
    {
        CounterSeries series = counter.Bind(new KeyValuePair<string, object?>("s", "removed"));
        Assert.True(series.TryPromote());
        WriteFromTwoThreadsAtOnce(series);
        Assert.True(series.TotalRegionCount > 1);
        Assert.True(counter.Remove(series));
        Assert.Equal(2, Assert.Single(counter.Collect()).Value);
    }

    // Not inlined, as above: promoted (beside a series promoted before it), removed, exported.
    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void PromoteAndRemove(PartitionedCounter counter)
    {
        CounterSeries series = counter.Bind(new KeyValuePair<string, object?>("s", "removed"));
        Assert.True(series.TryPromote());
        Assert.Equal(1, series.Slots.FirstSlot);
        Assert.True(counter.Remove(series));
        Assert.Equal(2, counter.Collect().Count());
    }

    private static void WriteFromTwoThreadsAtOnce(CounterSeries series)
    {
        using var bothHoldAnIndex = new Barrier(2);
        ConcurrentWriters.Run(2, _ =>
        {
            ThreadLease.AcquireIndexForCurrentThread();
            bothHoldAnIndex.SignalAndWait();
            series.Add(1);
        });
    }
}
