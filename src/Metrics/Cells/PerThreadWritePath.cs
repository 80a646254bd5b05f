using System.Diagnostics;
using System.Runtime.CompilerServices;
using ScalableMetrics.Diagnostics;

namespace ScalableMetrics.Cells;

/// <summary>
/// <see cref="WritePath.PerThread"/>: a plain add (<see cref="ISlotOperation{TValue}.AddSingleWriter"/>)
/// to the region of the calling thread's index (<see cref="ThreadLease"/>), which only the index's
/// holder writes, so no atomic instruction. A series' chunk may have fewer regions than there are
/// indexes: the first add of a thread past them moves the series to a wider generation of its
/// chunk (<see cref="NewSlot"/>), and reads sum every generation.
/// </summary>
internal static unsafe class PerThreadWritePath
{
    /// <summary>The slot at <paramref name="slotInRegion0"/> in the region of thread index <paramref name="index"/>, which the caller has checked is below its chunk's regions.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static long* Slot(long* slotInRegion0, int regionStrideShift, int index)
    {
        Debug.Assert(index >= 0, "the caller checks the index against the chunk's regions");
        return (long*)((byte*)slotInRegion0 + ((nint)index << regionStrideShift));
    }

    /// <summary>
    /// Where the calling thread has no index yet, or its index is past the regions of a series'
    /// chunk: takes an index, and moves the series to a generation of its chunk with enough regions
    /// if need be. Nothing is copied: writers that read the old chunk may still add to it, and reads
    /// sum every generation.
    /// </summary>
    /// <param name="chunk">The series' chunk: replaced by a wider generation, under the arena's read lock, so that it only ever moves to a later one.</param>
    /// <param name="slotInRegion0">The series' first slot in region 0 of <paramref name="chunk"/>: moved with it, before <paramref name="regionCount"/>.</param>
    /// <param name="regionCount">The regions of the chunk <paramref name="slotInRegion0"/> points into, which an add reads first (a volatile read): written last, so that an add never sees more regions than the pointer it then reads can carry.</param>
    /// <param name="firstSlot">The series' first slot in its chunk (the same in every generation).</param>
    /// <returns>The calling thread's slot <paramref name="firstSlot"/>.</returns>
    public static long* NewSlot(ref ArenaChunk chunk, ref long* slotInRegion0, ref int regionCount, int firstSlot)
    {
        int index = ThreadLease.AcquireIndexForCurrentThread();
        long* threadSlot = Volatile.Read(ref chunk).ThreadSlot(index, firstSlot);
        if (threadSlot != null)
        {
            return threadSlot;
        }

        PartitionArena arena = chunk.Arena;
        lock (arena.ReadLock)
        {
            ArenaChunk current = chunk;
            threadSlot = current.ThreadSlot(index, firstSlot);
            if (threadSlot == null)
            {
                ArenaChunk wider = arena.Widen(current, Math.Max(index + 1, ThreadLease.IndexCount));
                Debug.Assert(wider.FirstGeneration == current.FirstGeneration && wider.RegionCount > index, "a later generation of the same chunk, with a region for the index");
                Volatile.Write(ref chunk, wider);

                // The pointer first, then the count that lets adds use it: the count's volatile
                // write is a release, so no add that reads the new count reads the old pointer.
                slotInRegion0 = wider.SlotAddress(0, firstSlot);
                Volatile.Write(ref regionCount, wider.RegionCount);
                threadSlot = wider.ThreadSlot(index, firstSlot);
            }
        }

        Debug.Assert(threadSlot != null, "the chunk now has a region for the index");
        return threadSlot;
    }
}
