using System.Diagnostics;
using System.Diagnostics.CodeAnalysis;
using ScalableMetrics.Diagnostics;

namespace ScalableMetrics.Cells;

/// <summary>
/// A registry's slots: hands each series a range of slots that is the same in every partition's
/// region (<see cref="ArenaChunk"/>), and sums them at collection. Thread-safe.
/// </summary>
/// <remarks>
/// <para>Grows by new chunks, never by moving: a writer may hold a slot's address, so a live
/// slot never moves and no value is ever copied. Chunks grow geometrically, from
/// <see cref="FirstChunkSlots"/> slots per region (128 bytes) doubling up to
/// <see cref="MaxChunkSlots"/> (4 KB per region), then stay at that size, so that a registry with
/// few series keeps little and one with many wastes at most the unused tail of its last chunk.</para>
/// <para>Per thread (<see cref="WritePath.PerThread"/>) the region count grows too: a chunk has one
/// region per thread index handed out when it was made, and a series whose writer holds an index
/// past its chunk's regions moves to the chunk's successor, the same slots in more regions
/// (<see cref="Widen"/>).</para>
/// <para>With <see cref="SeriesStorage.Adaptive"/> the arena keeps the promotion budget
/// (<see cref="MetricRegistryOptions.MaxPromotedBytes"/>) as what the promoted series' slots
/// hold: each range's slots × 8 bytes × the regions of every generation of its chunk. A promotion
/// takes what its range holds, and is refused where that is more than is left
/// (<see cref="TryAllocatePromotion"/>); a widening takes what its new generation holds of the
/// chunk's slots handed out, and is never refused, so it may leave less than nothing
/// (<see cref="Widen"/>); a free gives back what the range holds then, which is what it was
/// charged (<see cref="Free"/>). All three under the allocation lock.</para>
/// <para>Reads of every series of the registry are serialized by <see cref="ReadLock"/>: each
/// slot only grows, and each read visits every slot after the read before it did, so no read
/// returns less than an earlier one.</para>
/// </remarks>
internal sealed class PartitionArena
{
    /// <summary>Slots per region in the first chunk: one 128-byte block.</summary>
    public const int FirstChunkSlots = ArenaChunk.RegionAlignment / ArenaChunk.SlotSize;

    /// <summary>Slots per region from which chunks stop growing: 4 KB per region.</summary>
    public const int MaxChunkSlots = 512;

    private readonly Lock _allocationLock = new();
    private readonly List<ArenaChunk> _chunks = [];
    private readonly long _maxPromotedBytes;
    private ArenaChunk? _current;
    private int _nextChunkSlots = FirstChunkSlots;
    private int _regionCount;
    private long[] _scratch = [];
    private ArenaChunk[] _chunksRead = [];

    // The promotion budget left: below zero where widenings took the promoted slots past it.
    private long _promotionBytesLeft;
    private long[] _promotedReadScratch = [];
    private long _promotedSeriesCount;

    // Ranges of removed series, zeroed, by slot count: what Allocate hands out first (Free).
    private Dictionary<int, Stack<SlotRange>>? _freeRanges;

    /// <summary>Creates an arena of per-partition slots, with its compact arena.</summary>
    /// <param name="writePath">How its slots are written.</param>
    /// <param name="regionCount">Regions in each chunk; per thread, in the first chunks (it grows with the thread indexes).</param>
    /// <param name="storage">Where its series keep their data: compact first (<see cref="SeriesStorage.Adaptive"/>), here from creation, or compact always.</param>
    /// <param name="maxPromotedBytes">With <see cref="SeriesStorage.Adaptive"/>, the promotion budget: the most bytes of this arena's slots that promotions may take (widenings may take more; see remarks).</param>
    public PartitionArena(WritePath writePath, int regionCount, SeriesStorage storage = SeriesStorage.PerPartition, long maxPromotedBytes = MetricRegistryOptions.DefaultMaxPromotedBytes)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(regionCount, 1);
        ArgumentOutOfRangeException.ThrowIfNegative(maxPromotedBytes);
        WritePath = writePath;
        _regionCount = regionCount;
        Storage = storage;
        _maxPromotedBytes = maxPromotedBytes;
        _promotionBytesLeft = maxPromotedBytes;
        ReadLock = new Lock();
        PerPartition = this;
        Compact = new PartitionArena(this);
    }

    // The compact arena of perPartition: one region, written only with atomic adds, read under the same lock.
    private PartitionArena(PartitionArena perPartition)
    {
        WritePath = perPartition.WritePath;
        _regionCount = 1;
        Storage = SeriesStorage.Compact;
        ReadLock = perPartition.ReadLock;
        PerPartition = perPartition;
        Compact = this;
    }

    /// <summary>Where the series of this arena keep their data (<see cref="SeriesStorage"/>); <see cref="SeriesStorage.Compact"/> for a compact arena.</summary>
    public SeriesStorage Storage { get; }

    /// <summary>
    /// The arena of compact ranges: one region per chunk, whose slots every writer adds to
    /// atomically; a compact arena's own is itself. A series' compact range is read with its
    /// per-partition one (if promoted) under the shared <see cref="ReadLock"/>.
    /// </summary>
    public PartitionArena Compact { get; }

    /// <summary>The arena whose compact arena this is, or, for a per-partition arena, itself: where promotions allocate.</summary>
    public PartitionArena PerPartition { get; }

    /// <summary>Room for the per-partition sums of <paramref name="length"/> slots of promoted series, kept between reads; the caller holds <see cref="ReadLock"/>.</summary>
    public Span<long> PromotedReadScratch(int length)
    {
        if (_promotedReadScratch.Length < length)
        {
            _promotedReadScratch = new long[Math.Max(length, 2 * _promotedReadScratch.Length)];
        }

        return _promotedReadScratch.AsSpan(0, length);
    }

    /// <summary>The series promoted so far (<see cref="TryAllocatePromotion"/>).</summary>
    public long PromotedSeriesCount => Volatile.Read(ref _promotedSeriesCount);

    /// <summary>
    /// With <see cref="SeriesStorage.Adaptive"/>, the bytes the promoted series' slots hold now, as
    /// the promotion budget counts them (see remarks): at most the budget after a promotion, more
    /// where widenings took it past; 0 otherwise.
    /// </summary>
    public long PromotedBytes
    {
        get
        {
            lock (_allocationLock)
            {
                return _maxPromotedBytes - _promotionBytesLeft;
            }
        }
    }

    /// <summary>Whether a new series starts compact: with <see cref="SeriesStorage.Adaptive"/> and <see cref="SeriesStorage.Compact"/>.</summary>
    public bool StartsCompact => Storage != SeriesStorage.PerPartition;

    /// <summary>
    /// Hands a contended compact series of <paramref name="slotCount"/> slots its per-partition
    /// slots, as <see cref="Allocate"/> does, where the promotion budget has room for what they
    /// hold (<paramref name="slotCount"/> × 8 bytes × the regions of every generation of their
    /// chunk), takes that from the budget, and counts the promotion.
    /// </summary>
    /// <param name="slotCount">The series' slots.</param>
    /// <param name="range">The slots handed out; default where none were.</param>
    /// <returns><see langword="false"/>, with nothing handed out or taken, where the storage is not
    /// <see cref="SeriesStorage.Adaptive"/> or the budget has no room: the series stays compact.</returns>
    public bool TryAllocatePromotion(int slotCount, out SlotRange range)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(slotCount, 1);
        range = default;
        if (Storage != SeriesStorage.Adaptive)
        {
            return false;
        }

        lock (_allocationLock)
        {
            // What the range about to be handed out holds: the very range, not the regions of a
            // new chunk, so that a free gives back exactly what was taken.
            long bytes = (long)slotCount * ArenaChunk.SlotSize * NextRangeRegionCount(slotCount);
            if (bytes > _promotionBytesLeft)
            {
                return false;
            }

            range = AllocateLocked(slotCount);
            Debug.Assert(bytes == (long)slotCount * ArenaChunk.SlotSize * range.Chunk.TotalRegionCount(), "the range NextRangeRegionCount measured");
            _promotionBytesLeft -= bytes;
            _promotedSeriesCount++;
            return true;
        }
    }

    /// <summary>How this arena's slots are written.</summary>
    public WritePath WritePath { get; }

    /// <summary>The regions a new chunk gets; per thread, it only grows.</summary>
    public int RegionCount => Volatile.Read(ref _regionCount);

    /// <summary>Taken by every read of this arena's slots: see remarks.</summary>
    public Lock ReadLock { get; }

    /// <summary>The number of chunks so far.</summary>
    public int ChunkCount
    {
        get
        {
            lock (_allocationLock)
            {
                return _chunks.Count;
            }
        }
    }

    /// <summary>The bytes the arena's chunks hold (regions, alignment slack and array headers).</summary>
    public long ReservedBytes
    {
        get
        {
            lock (_allocationLock)
            {
                return _chunks.Sum(chunk => chunk.ReservedBytes);
            }
        }
    }

    /// <summary>Hands out <paramref name="slotCount"/> adjacent slots, zero, in the current chunk or a new one of <see cref="RegionCount"/> regions.</summary>
    /// <param name="slotCount">Slots the series needs: 1 for a counter, 2 for an operation.</param>
    public SlotRange Allocate(int slotCount)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(slotCount, 1);
        lock (_allocationLock)
        {
            return AllocateLocked(slotCount);
        }
    }

    // Allocate, under the allocation lock: a free range of as many slots first, else the current
    // chunk's next slots, else a new chunk's.
    private SlotRange AllocateLocked(int slotCount)
    {
        SlotRange range;
        if (FreeRangesOf(slotCount) is { Count: > 0 } free)
        {
            range = free.Pop();
        }
        else
        {
            ArenaChunk? chunk = _current;
            // Per thread, the current chunk may have fewer regions than new chunks get: its
            // successors, made already, hold its slots in as many.
            if (!HasRoom(chunk, slotCount))
            {
                int capacity = Math.Max(_nextChunkSlots, slotCount);
                chunk = new ArenaChunk(this, _chunks.Count, _regionCount, capacity);
                _chunks.Add(chunk);
                _current = chunk;
                _nextChunkSlots = Math.Min(MaxChunkSlots, 2 * _nextChunkSlots);
            }

            range = new SlotRange(chunk, chunk.UsedSlots);
            chunk.UsedSlots += slotCount;
        }

        range.Chunk.AllocatedSlots += slotCount;
        return range;
    }

    // Under the allocation lock: the regions, over every generation, of the range AllocateLocked
    // would hand out next for slotCount slots.
    private int NextRangeRegionCount(int slotCount) =>
        FreeRangesOf(slotCount) is { Count: > 0 } free ? free.Peek().Chunk.TotalRegionCount()
        : HasRoom(_current, slotCount) ? _current.TotalRegionCount()
        : _regionCount;

    // Under the allocation lock: the free ranges of slotCount slots (Free), or null where there were none.
    private Stack<SlotRange>? FreeRangesOf(int slotCount) =>
        _freeRanges is not null && _freeRanges.TryGetValue(slotCount, out Stack<SlotRange>? free) ? free : null;

    // Whether chunk, the current one, has slotCount slots left.
    private static bool HasRoom([NotNullWhen(true)] ArenaChunk? chunk, int slotCount) =>
        chunk is not null && chunk.UsedSlots + slotCount <= chunk.SlotCapacity;

    /// <summary>
    /// Takes back <paramref name="range"/>'s <paramref name="slotCount"/> slots, which no thread
    /// can write any more (a removed series the GC collected, <c>RetiredSeries</c>): zeroed in every
    /// region of every generation, as <see cref="Allocate"/> hands slots out, then kept for the next
    /// allocation of as many slots. A promoted range gives the promotion budget back what it holds
    /// now, <paramref name="slotCount"/> × 8 bytes × the regions of every generation of its chunk:
    /// what its promotion took, and each widening of its chunk since.
    /// </summary>
    public unsafe void Free(SlotRange range, int slotCount)
    {
        for (ArenaChunk? generation = range.Chunk.FirstGeneration; generation is not null; generation = generation.Successor)
        {
            for (int region = 0; region < generation.RegionCount; region++)
            {
                new Span<long>(generation.SlotAddress(region, range.FirstSlot), slotCount).Clear();
            }
        }

        lock (_allocationLock)
        {
            _freeRanges ??= [];
            if (!_freeRanges.TryGetValue(slotCount, out Stack<SlotRange>? free))
            {
                _freeRanges.Add(slotCount, free = new Stack<SlotRange>());
            }

            ArenaChunk first = range.Chunk.FirstGeneration;
            free.Push(new SlotRange(first, range.FirstSlot));
            first.AllocatedSlots -= slotCount;
            if (Storage == SeriesStorage.Adaptive)
            {
                // Under the lock Widen takes, so that the generations counted are the ones charged.
                _promotionBytesLeft += (long)slotCount * ArenaChunk.SlotSize * first.TotalRegionCount();
            }
        }
    }

    /// <summary>The range whose first slot is <paramref name="slot"/> of region 0 of one of this arena's chunks (a compact range, known by its address).</summary>
    public unsafe SlotRange RangeAt(long* slot)
    {
        lock (_allocationLock)
        {
            foreach (ArenaChunk chunk in _chunks)
            {
                if (slot >= chunk.Region0 && slot < chunk.Region0 + chunk.SlotCapacity)
                {
                    return new SlotRange(chunk, (int)(slot - chunk.Region0));
                }
            }
        }

        throw new ArgumentOutOfRangeException(nameof(slot), "Not a slot of this arena.");
    }

    /// <summary>
    /// Per thread: the first generation of <paramref name="chunk"/>'s slots, from it on, with at
    /// least <paramref name="minimumRegionCount"/> regions, made if need be. A new generation gets
    /// twice the regions of the one before at least, and new chunks as many, so that a series
    /// moves O(log threads) times and its generations together hold fewer than twice the regions
    /// of its last. With <see cref="SeriesStorage.Adaptive"/>, a new generation's copies of the
    /// slots handed out in the chunk (<see cref="ArenaChunk.AllocatedSlots"/>: promoted series'; not
    /// the free ones) are charged to the promotion budget. Never refused, as a writer must get a
    /// slot: the budget may go below zero, and promotions are then refused until frees bring it back.
    /// </summary>
    public ArenaChunk Widen(ArenaChunk chunk, int minimumRegionCount)
    {
        lock (_allocationLock)
        {
            while (chunk.RegionCount < minimumRegionCount)
            {
                if (chunk.Successor is not { } successor)
                {
                    int regions = Math.Max(Math.Max(minimumRegionCount, 2 * chunk.RegionCount), _regionCount);
                    Volatile.Write(ref _regionCount, regions);
                    successor = new ArenaChunk(this, chunk.Index, regions, chunk.SlotCapacity, chunk.FirstGeneration);
                    chunk.Successor = successor;
                    if (Storage == SeriesStorage.Adaptive)
                    {
                        _promotionBytesLeft -= (long)chunk.FirstGeneration.AllocatedSlots * ArenaChunk.SlotSize * regions;
                    }
                }

                chunk = successor;
            }

            return chunk;
        }
    }

    /// <summary>
    /// Sums each range's <paramref name="slotsPerRange"/> slots over every region into
    /// <paramref name="totals"/> (range i's slot k at i × <paramref name="slotsPerRange"/> + k), each
    /// slot summed by <paramref name="kind"/> (saturating at <see cref="long.MaxValue"/>, wrapping,
    /// or, for <see cref="SlotSum.Double"/>, as doubles whose bits the totals hold). Chunk by chunk:
    /// each chunk's regions are read once, each as a contiguous run over the span of slots the
    /// ranges use, vectorized, rather than one strided walk per series. The caller holds <see cref="ReadLock"/>.
    /// </summary>
    public void SumRanges(ReadOnlySpan<SlotRange> ranges, int slotsPerRange, Span<long> totals, SlotSum kind)
    {
        // Chunks made after the ranges were read hold none of them: the count read now covers all.
        int chunkCount = ChunkCount;
        Span<int> low = chunkCount <= 256 ? stackalloc int[chunkCount] : new int[chunkCount];
        Span<int> high = chunkCount <= 256 ? stackalloc int[chunkCount] : new int[chunkCount];
        Span<int> scratchStart = chunkCount <= 256 ? stackalloc int[chunkCount] : new int[chunkCount];
        low.Fill(int.MaxValue);
        high.Clear();
        foreach (SlotRange range in ranges)
        {
            // A range's chunk may be a successor: its index is its first generation's, whose sum covers it.
            int index = range.Chunk.Index;
            low[index] = Math.Min(low[index], range.FirstSlot);
            high[index] = Math.Max(high[index], range.FirstSlot + slotsPerRange);
        }

        // One scratch array for every chunk's sums, kept between reads (under ReadLock).
        int scratchLength = 0;
        for (int c = 0; c < chunkCount; c++)
        {
            scratchStart[c] = scratchLength;
            scratchLength += Math.Max(0, high[c] - low[c]);
        }

        if (_scratch.Length < scratchLength)
        {
            _scratch = new long[scratchLength];
        }

        // Copied into an array kept between reads (under ReadLock), as _scratch is: a read allocates nothing per chunk.
        if (_chunksRead.Length < chunkCount)
        {
            _chunksRead = new ArenaChunk[Math.Max(chunkCount, 2 * _chunksRead.Length)];
        }

        ArenaChunk[] chunks = _chunksRead;
        lock (_allocationLock)
        {
            _chunks.CopyTo(0, chunks, 0, chunkCount);
        }

        for (int c = 0; c < chunkCount; c++)
        {
            if (high[c] > low[c])
            {
                chunks[c].SumRegions(low[c], _scratch.AsSpan(scratchStart[c], high[c] - low[c]), kind);
            }
        }

        for (int i = 0; i < ranges.Length; i++)
        {
            int index = ranges[i].Chunk.Index;
            int at = scratchStart[index] + ranges[i].FirstSlot - low[index];
            _scratch.AsSpan(at, slotsPerRange).CopyTo(totals.Slice(i * slotsPerRange, slotsPerRange));
        }
    }
}
