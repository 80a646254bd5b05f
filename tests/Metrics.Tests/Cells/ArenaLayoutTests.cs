using ScalableMetrics.Cells;
using ScalableMetrics.Diagnostics;
using ScalableMetrics.Platform;

namespace ScalableMetrics.Tests.Cells;

/// <summary>The arena's layout, read back (after Disruptor-net's layout tests), so that a refactor cannot un-pad it.</summary>
public unsafe class ArenaLayoutTests
{
    [StorageTheory]
    [MemberData(nameof(Storages.WritePaths), MemberType = typeof(Storages))]
    public void RegionsAre128ByteAlignedAndNeverShareA128ByteBlock(string storage)
    {
        var registry = new MetricRegistry(Storages.Options(storage));
        PartitionedCounter counter = registry.CreateCounter("test.layout");

        // Enough series to fill several chunks of growing size.
        for (int i = 0; i < 2_000; i++)
        {
            SlotRange slots = counter.Bind(new KeyValuePair<string, object?>("i", i)).Slots;
            ArenaChunk chunk = slots.Chunk;
            Assert.Equal(0, (nint)chunk.Region0 % 128);
            Assert.Equal(0, chunk.RegionStride % 128);

            // A slot's region, and its 128-byte block, is its partition's alone.
            Assert.InRange(slots.FirstSlot * sizeof(long), 0, chunk.RegionStride - sizeof(long));
            for (int region = 1; region < chunk.RegionCount; region++)
            {
                nint blockOfPrevious = (nint)chunk.SlotAddress(region - 1, chunk.SlotCapacity - 1) / 128;
                nint blockOfThis = (nint)chunk.SlotAddress(region, 0) / 128;
                Assert.True(blockOfThis > blockOfPrevious);
            }
        }
    }

    [Fact]
    public void ASeriesSlotIsAtTheSameOffsetInEveryRegion()
    {
        var registry = new MetricRegistry(new MetricRegistryOptions { Strategy = PartitionStrategy.PerProcessor, UseRestartableSequences = false, PartitionCount = ProcessorId.PartitionCount + 3 });
        PartitionedCounter counter = registry.CreateCounter("test.offsets");
        CounterSeries[] series = [.. Enumerable.Range(0, 40).Select(i => counter.Bind(new KeyValuePair<string, object?>("i", i)))];
        for (int i = 0; i < series.Length; i++)
        {
            series[i].Add(i + 1);
        }

        // Each series' value sits in exactly one region (the adding thread's), at its own slot
        // offset, and nowhere else; summing one slot over the regions gives it back.
        foreach ((CounterSeries s, int i) in series.Select((s, i) => (s, i)))
        {
            SlotRange slots = s.Slots;
            long[] perRegion = [.. Enumerable.Range(0, slots.Chunk.RegionCount).Select(r => *slots.Chunk.SlotAddress(r, slots.FirstSlot))];
            Assert.Equal(i + 1, perRegion.Sum());
            Assert.Single(perRegion, v => v != 0);
            Assert.Equal(i + 1, s.Read());
        }
    }

    [Fact]
    public void ChunksGrowGeometricallyToACapAndSlotsArePackedDensely()
    {
        var arena = new PartitionArena(WritePath.InterlockedProcessorId, 3);
        var capacities = new List<int>();
        SlotRange previous = arena.Allocate(1);
        capacities.Add(previous.Chunk.SlotCapacity);
        for (int i = 1; i < 5_000; i++)
        {
            SlotRange range = arena.Allocate(1);
            if (range.Chunk == previous.Chunk)
            {
                // Dense: the next series takes the next slot.
                Assert.Equal(previous.FirstSlot + 1, range.FirstSlot);
            }
            else
            {
                Assert.Equal(0, range.FirstSlot);
                capacities.Add(range.Chunk.SlotCapacity);
            }

            previous = range;
        }

        // 16 + 32 + 64 + 128 + 256 = 496 slots, then 4,504 more in chunks of 512: 9 of them.
        Assert.Equal([16, 32, 64, 128, 256, .. Enumerable.Repeat(512, 9)], capacities);
        Assert.Equal(128, new PartitionArena(WritePath.InterlockedProcessorId, 3).Allocate(1).Chunk.RegionStride);
        Assert.Equal(4096, previous.Chunk.RegionStride);
        Assert.All(capacities, c => Assert.InRange(c, PartitionArena.FirstChunkSlots, PartitionArena.MaxChunkSlots));
    }

    [Fact]
    public void AnOperationSeriesTakesTwoAdjacentSlotsInOneChunk()
    {
        var arena = new PartitionArena(WritePath.InterlockedProcessorId, 2);
        for (int i = 0; i < 100; i++)
        {
            SlotRange range = arena.Allocate(OperationSeries.SlotCount);
            Assert.InRange(range.FirstSlot + OperationSeries.SlotCount, 2, range.Chunk.SlotCapacity);
        }

        // Alone, two-slot ranges start at even slots of chunks of even capacity, so none is ever
        // offered a chunk's last slot alone. After k one-slot series, for every k the first chunk
        // holds, the operation series takes slots k and k + 1 where both fit, and a new chunk's
        // first two where one slot is left (k = 15) or none: never one slot of each chunk.
        for (int k = 0; k <= PartitionArena.FirstChunkSlots; k++)
        {
            var offset = new PartitionArena(WritePath.InterlockedProcessorId, 2);
            ArenaChunk? firstChunk = null;
            for (int j = 0; j < k; j++)
            {
                ArenaChunk chunk = offset.Allocate(1).Chunk;
                firstChunk ??= chunk;
            }

            SlotRange operation = offset.Allocate(OperationSeries.SlotCount);
            firstChunk ??= operation.Chunk;
            Assert.InRange(operation.FirstSlot + OperationSeries.SlotCount, 2, operation.Chunk.SlotCapacity);
            if (k + OperationSeries.SlotCount <= firstChunk.SlotCapacity)
            {
                Assert.Same(firstChunk, operation.Chunk);
                Assert.Equal(k, operation.FirstSlot);
            }
            else
            {
                Assert.NotSame(firstChunk, operation.Chunk);
                Assert.Equal(0, operation.FirstSlot);
            }
        }
    }
}
