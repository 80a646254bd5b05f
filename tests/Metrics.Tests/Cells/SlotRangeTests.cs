using ScalableMetrics.Cells;
using ScalableMetrics.Diagnostics;

namespace ScalableMetrics.Tests.Cells;

/// <summary>
/// <see cref="SlotRange"/> prints its two members through a hand-written <c>PrintMembers</c>: the
/// one the compiler generates also prints the pointer property, and ILCompiler 10.0.12 fails to
/// compile it (scripts/aot-check.sh publishes with Native AOT).
/// </summary>
public sealed class SlotRangeTests
{
    [Fact]
    public void ARangePrintsItsChunkAndFirstSlotOnly()
    {
        var arena = new PartitionArena(WritePath.InterlockedProcessorId, 2);
        _ = arena.Allocate(1);
        SlotRange range = arena.Allocate(1);

        Assert.Equal($"SlotRange {{ Chunk = {range.Chunk}, FirstSlot = 1 }}", range.ToString());
    }

    [Fact]
    public void RangesStillCompareByChunkAndFirstSlot()
    {
        var arena = new PartitionArena(WritePath.InterlockedProcessorId, 2);
        SlotRange first = arena.Allocate(1);
        SlotRange second = arena.Allocate(1);

        Assert.Equal(first, first with { });
        Assert.NotEqual(first, second);
        Assert.Equal(first, second with { FirstSlot = first.FirstSlot });
    }
}
