using System.Runtime.CompilerServices;
using ScalableMetrics.Diagnostics;

namespace ScalableMetrics.Cells;

/// <summary>
/// <see cref="WritePath.PerThread"/>: a series' slots, one region per thread index
/// (<see cref="ThreadLease"/>), each written by the thread holding the index alone, with plain
/// stores. Immutable: a series whose writer's index is past <see cref="RegionCount"/> replaces it
/// with one in a chunk with more regions, in one reference write, so that a writer always sees an
/// address, a stride and a region count that belong together.
/// </summary>
/// <remarks>
/// A slot outlives its thread: the next thread given the same index goes on adding to it, one
/// writer after the other, so an ended thread's adds need no moving. The ranges a series has
/// outgrown are kept in <see cref="Outgrown"/> and still summed, because a writer that read the
/// old object before the move may still add to it (once); nothing is copied, so nothing can be
/// lost in a copy. Region counts at least double at each move, so the outgrown ranges together
/// hold fewer regions than the current one.
/// </remarks>
internal sealed unsafe class PerThreadSlots
{
    // Flat fields, not a SlotRange, so that the object is 56 bytes, not 64.
    private readonly ArenaChunk _chunk;
    private readonly int _firstSlot;

    public PerThreadSlots(SlotRange range, PerThreadSlots[] outgrown)
    {
        _chunk = range.Chunk;
        _firstSlot = range.FirstSlot;
        SlotInRegion0 = range.SlotInRegion0;
        RegionStride = range.Chunk.RegionStride;
        RegionCount = range.Chunk.RegionCount;
        Outgrown = outgrown;
    }

    /// <summary>The first slot in region 0.</summary>
    public long* SlotInRegion0 { get; }

    /// <summary>The chunk's region stride.</summary>
    public nint RegionStride { get; }

    /// <summary>The chunk's regions: thread indexes below it have a slot here.</summary>
    public int RegionCount { get; }

    /// <summary>Where the slots are.</summary>
    public SlotRange Range => new(_chunk, _firstSlot);

    /// <summary>The ranges the series had before, oldest first; still summed.</summary>
    public PerThreadSlots[] Outgrown { get; }

    /// <summary>The thread index's first slot, or null where <paramref name="index"/> (-1: none yet) has no region here.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public long* SlotOf(int index) =>
        (uint)index < (uint)RegionCount ? (long*)((byte*)SlotInRegion0 + (index * RegionStride)) : null;

    /// <summary>The regions of this range and the outgrown ones together.</summary>
    public int TotalRegionCount => RegionCount + Outgrown.Sum(slots => slots.RegionCount);
}
