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
    public void AWidenedPromotedSeriesCopiesStayWithinThePromotionBudget()
    {
        // Room for one one-slot series in the one region the registry starts with: promoted, it
        // fills the budget; the copies a wider generation adds are per-partition copies too.
        var registry = new MetricRegistry(new MetricRegistryOptions { Strategy = PartitionStrategy.PerThread, SeriesStorage = SeriesStorage.Adaptive, PartitionCount = 1, MaxPromotedBytes = 8 });
        CounterSeries series = registry.CreateCounter("test.budget.widened").Bind();
        Assert.True(series.TryPromote());
        WriteFromTwoThreadsAtOnce(series);

        long promotedBytes = 8L * series.TotalRegionCount;
        Assert.True(promotedBytes <= 8, $"one promoted series holds {promotedBytes} bytes of per-partition copies under MaxPromotedBytes = 8");
        Assert.Equal(2, series.Read());
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
