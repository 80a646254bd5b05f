using ScalableMetrics.Cells;

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
}
