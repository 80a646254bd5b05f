using System.Numerics;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using ScalableMetrics.Diagnostics;

namespace ScalableMetrics.Cells;

/// <summary>
/// One block of an arena: <see cref="RegionCount"/> regions, one per partition, each holding
/// <see cref="SlotCapacity"/> slots of 8 bytes; a series' slots sit at the same offset in every
/// region.
/// </summary>
/// <remarks>
/// <para>Layout (after Linux <c>mm/percpu.c</c> and tcmalloc's per-CPU caches):</para>
/// <code>
/// Region0 ─► [ region 0: slot 0 | slot 1 | … | slot n-1 | pad to 128 B ]   written by partition 0 only
///            [ region 1: slot 0 | slot 1 | … | slot n-1 | pad to 128 B ]   written by partition 1 only
///            …
///            [ region R-1 …                                            ]
/// slot s of partition p = Region0 + p × RegionStride + s × 8
/// </code>
/// <para>Regions start on 128-byte boundaries and are a multiple of 128 bytes long, so two
/// partitions never write the same 128-byte block (Intel's spatial prefetcher pairs 64-byte
/// lines); inside a region many series sit side by side, as only its partition writes it. The
/// memory is native, zeroed by <see cref="NativeMemory.AllocZeroed(nuint)"/>: it never moves, so a
/// writer may hold a slot's address, and the chunk (kept alive by every series in it, and by its
/// arena) frees it in its finalizer when the last of them is gone. Native rather than a pinned
/// array, which the GC zeroes by writing every page: the C allocator takes a large block fresh
/// from the operating system (<c>mmap</c> on Linux), whose pages are zero and become resident
/// only when first written, so that regions of processors that never write a promoted series cost
/// address space, not memory (as tcmalloc's per-CPU slabs stay virtual until a CPU uses them).
/// Regions of a page or more, in chunks of <see cref="PageAlignedRegionCount"/> regions or more,
/// start on a page boundary, so that one processor's region never shares a page with another's.</para>
/// <para>Per thread (<see cref="WritePath.PerThread"/>) a chunk whose regions run out of thread
/// indexes gets a successor (<see cref="PartitionArena.Widen"/>): the same slots in more regions,
/// shared by every series of the chunk. A series that moves keeps its slot offset and replaces
/// only its chunk reference, so a writer that read either chunk writes its own slot; a chunk's
/// generations are summed together, so the adds a writer made to an outgrown one still count and
/// nothing is ever copied.</para>
/// <para>Slots are handed out by the arena under its lock; values are written by the write paths
/// and read by <see cref="SumRegions(int, Span{long}, SlotSum)"/> and the <c>SumSlot</c> methods.
/// What a slot holds, and so how its partitions add up, is its <see cref="SlotSum"/>, which the
/// series that owns it knows: saturating values in [0, <see cref="long.MaxValue"/>] (counters,
/// bucket counts), wrapping values of either sign (up-down counters), or a
/// <see cref="double"/>'s bits (double counters, histogram sums). Every slot is an aligned 8-byte
/// word written by one store, so no read sees half of a value.</para>
/// </remarks>
internal sealed unsafe class ArenaChunk
{
    /// <summary>Regions start on, and are a multiple of, this many bytes: two 64-byte cache lines.</summary>
    public const int RegionAlignment = 128;

    /// <summary>Regions from which a chunk whose regions are a page or more starts them on a page boundary: its page of slack is then at most a sixteenth of it.</summary>
    public const int PageAlignedRegionCount = 16;

    /// <summary>The bytes of one slot: one <see cref="long"/>.</summary>
    public const int SlotSize = sizeof(long);

    // The allocation: Region0 is inside it, aligned up.
    private readonly void* _memory;

    // Its length in bytes, which the GC is told of as memory pressure.
    private readonly long _memoryBytes;

    private ArenaChunk? _successor;

    /// <summary>Creates a chunk of zeroed slots.</summary>
    /// <param name="arena">The arena it belongs to.</param>
    /// <param name="index">Its position in the arena; a successor takes its first generation's.</param>
    /// <param name="regionCount">Its regions.</param>
    /// <param name="slotCapacity">Its slots in each region.</param>
    /// <param name="firstGeneration">For a successor, the chunk whose slots it widens; null for a new one.</param>
    public ArenaChunk(PartitionArena arena, int index, int regionCount, int slotCapacity, ArenaChunk? firstGeneration = null)
    {
        Arena = arena;
        Index = index;
        FirstGeneration = firstGeneration ?? this;
        RegionCount = regionCount;
        // A power of two, at least one alignment: an add then finds a region with a shift rather
        // than a multiply by a stride read from memory, which the per-thread add measurably paid
        // for (perf/results/README.md). Capacities are powers of two already
        // (FirstChunkSlots doubling to MaxChunkSlots); a larger request (a histogram series of
        // 17 slots) rounds up, and the chunk then holds as many slots as its stride has room for,
        // so that the rounding is not wasted.
        RegionStrideShift = BitOperations.Log2(BitOperations.RoundUpToPowerOf2((uint)Math.Max((long)slotCapacity * SlotSize, RegionAlignment)));
        RegionStride = (nint)1 << RegionStrideShift;
        SlotCapacity = (int)(RegionStride / SlotSize);

        // One alignment's worth more than the regions, to start region 0 on a 128-byte boundary,
        // or a page boundary where a region is a page or more and there are regions enough that
        // a page of slack is small beside them (a compact chunk's one region is always written).
        nint alignment = RegionStride >= Environment.SystemPageSize && regionCount >= PageAlignedRegionCount ? Environment.SystemPageSize : RegionAlignment;
        _memoryBytes = checked((RegionStride * regionCount) + alignment);
        _memory = NativeMemory.AllocZeroed((nuint)_memoryBytes);
        GC.AddMemoryPressure(_memoryBytes);
        nint start = (nint)_memory;
        Region0 = (long*)((start + alignment - 1) & ~(alignment - 1));
    }

    /// <summary>Frees the chunk's memory once nothing can reach it: no series, no arena, no later generation.</summary>
    ~ArenaChunk()
    {
        NativeMemory.Free(_memory);
        GC.RemoveMemoryPressure(_memoryBytes);
    }

    /// <summary>The arena this chunk belongs to.</summary>
    public PartitionArena Arena { get; }

    /// <summary>This chunk's position in its arena, 0 for the first.</summary>
    public int Index { get; }

    /// <summary>The chunk whose slots this one widens, or this one: the generation the arena handed the slots out from.</summary>
    public ArenaChunk FirstGeneration { get; }

    /// <summary>Per thread: the same slots in more regions, once a thread index outgrows these; written once, under the arena's allocation lock.</summary>
    public ArenaChunk? Successor
    {
        get => Volatile.Read(ref _successor);
        set => Volatile.Write(ref _successor, value);
    }

    /// <summary>The number of regions (partitions, plus the overflow region with restartable sequences).</summary>
    public int RegionCount { get; }

    /// <summary>The number of slots in each region.</summary>
    public int SlotCapacity { get; }

    /// <summary>Bytes from one region to the next: a multiple of <see cref="RegionAlignment"/>.</summary>
    public nint RegionStride { get; }

    /// <summary><see cref="RegionStride"/> as a power of two: the stride is <c>1 &lt;&lt; RegionStrideShift</c> bytes.</summary>
    public int RegionStrideShift { get; }

    /// <summary>Slot 0 of region 0, 128-byte aligned.</summary>
    public long* Region0 { get; }

    /// <summary>Slots handed out so far (from slot 0 up); written under the arena's allocation lock.</summary>
    public int UsedSlots { get; set; }

    /// <summary>On a first generation: the slots of <see cref="UsedSlots"/> that a series holds now, those the arena keeps free for reuse left out (what a widening of an adaptive arena's chunk charges the promotion budget for); read and written under the arena's allocation lock.</summary>
    public int AllocatedSlots { get; set; }

    /// <summary>The bytes of native memory this chunk and its successors hold, alignment slack included (address space: pages no one wrote are not resident).</summary>
    public long ReservedBytes => _memoryBytes + (Successor?.ReservedBytes ?? 0);

    /// <summary>Slot <paramref name="slot"/> of region <paramref name="region"/>, which the caller has checked is below <see cref="RegionCount"/>.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public long* SlotAddress(int region, int slot) => (long*)((byte*)Region0 + ((nint)region << RegionStrideShift)) + slot;

    /// <summary>Per thread: slot <paramref name="slot"/> of thread index <paramref name="index"/>'s region, or null where the index (-1: none yet) has no region here.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public long* ThreadSlot(int index, int slot) =>
        (uint)index < (uint)RegionCount ? SlotAddress(index, slot) : null;

    /// <summary>
    /// Sums slots [<paramref name="firstSlot"/>, <paramref name="firstSlot"/> + sums.Length) over
    /// every region of this chunk and of its successors into <paramref name="sums"/>, by
    /// <paramref name="kind"/> (for <see cref="SlotSum.Double"/>, <paramref name="sums"/> receives the
    /// bits of each <see cref="double"/> sum); region by region, so that each region is read as one
    /// contiguous run, vectorized. Slots of the run that hold another kind come out meaningless;
    /// the caller ignores them. Call it on the first generation.
    /// </summary>
    public void SumRegions(int firstSlot, Span<long> sums, SlotSum kind)
    {
        sums.Clear();
        for (ArenaChunk? generation = this; generation is not null; generation = generation.Successor)
        {
            for (int region = 0; region < generation.RegionCount; region++)
            {
                AddInto(sums, new ReadOnlySpan<long>(generation.SlotAddress(region, firstSlot), sums.Length), kind);
            }
        }
    }

    /// <summary>Adds <paramref name="slots"/> into <paramref name="sums"/>, element by element, as slots of <paramref name="kind"/> sum: one region's slots into the sums so far, or one series' per-partition sums into its total.</summary>
    public static void AddInto(Span<long> sums, ReadOnlySpan<long> slots, SlotSum kind)
    {
        switch (kind)
        {
            case SlotSum.Saturating:
                SaturatingSum.AddInto(sums, slots);
                break;
            case SlotSum.Wrapping:
                WrappingSum.AddInto(sums, slots);
                break;
            default:
                DoubleSum.AddInto(sums, slots);
                break;
        }
    }

    /// <summary>Sums one slot over every region of this chunk and of its successors, saturating at <see cref="long.MaxValue"/>: a strided walk, for reading one series. Call it on the first generation.</summary>
    public long SumSlot(int slot)
    {
        long sum = 0;
        for (ArenaChunk? generation = this; generation is not null; generation = generation.Successor)
        {
            for (int region = 0; region < generation.RegionCount; region++)
            {
                sum = SaturatingSum.Add(sum, Volatile.Read(ref *generation.SlotAddress(region, slot)));
            }
        }

        return sum;
    }

    /// <summary>Sums one slot that holds wrapping adds (<see cref="SlotSum.Wrapping"/>) over every region of this chunk and of its successors. Call it on the first generation.</summary>
    public long SumSlotWrapping(int slot)
    {
        long sum = 0;
        for (ArenaChunk? generation = this; generation is not null; generation = generation.Successor)
        {
            for (int region = 0; region < generation.RegionCount; region++)
            {
                sum = unchecked(sum + Volatile.Read(ref *generation.SlotAddress(region, slot)));
            }
        }

        return sum;
    }

    /// <summary>Sums one slot that holds a <see cref="double"/> (<see cref="SlotSum.Double"/>) over every region of this chunk and of its successors. Call it on the first generation.</summary>
    /// <param name="slot">The slot.</param>
    /// <param name="saturateEach">Whether each region's value is taken within ±<see cref="double.MaxValue"/> (an infinite one as the largest finite value of its sign) before it is added:
    /// an up-down counter's, whose regions may have passed the range in opposite directions, and whose sum would otherwise be NaN.</param>
    public double SumSlotDouble(int slot, bool saturateEach = false)
    {
        double sum = 0;
        for (ArenaChunk? generation = this; generation is not null; generation = generation.Successor)
        {
            for (int region = 0; region < generation.RegionCount; region++)
            {
                double value = DoubleCell.Read(generation.SlotAddress(region, slot));
                sum += saturateEach ? Math.Clamp(value, -double.MaxValue, double.MaxValue) : value;
            }
        }

        return sum;
    }

    /// <summary>The regions of this chunk and of its successors: what a read of one of its slots walks. Call it on the first generation.</summary>
    public int TotalRegionCount()
    {
        int total = 0;
        for (ArenaChunk? generation = this; generation is not null; generation = generation.Successor)
        {
            total += generation.RegionCount;
        }

        return total;
    }
}
