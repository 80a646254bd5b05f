using System.Runtime.CompilerServices;
using ScalableMetrics.Cells;
using ScalableMetrics.Diagnostics;

namespace ScalableMetrics;

/// <summary>
/// One series of a partitioned instrument: its tags and its data (a count and a sum of
/// <see cref="long"/>s), kept as one slot per partition in the registry's arena and summed only
/// when read.
/// </summary>
/// <remarks>
/// <para>The series' slots sit at the same offset in every partition's region of one arena chunk
/// (<see cref="ArenaChunk"/>), beside other series' slots: 8 bytes per slot per partition, padding
/// only between regions. An add goes to <c>slot in region 0 + partition × region stride</c> by the
/// registry's <see cref="Diagnostics.WritePath"/>, told apart by one field: a plain add inside a
/// restartable sequence (<see cref="RestartableWritePath"/>), an atomic add on the cached
/// processor id's region (<see cref="InterlockedWritePath"/>), or a plain store to the thread
/// index's region (<see cref="PerThreadSlots"/>). Every write saturates at
/// <see cref="long.MaxValue"/>.</para>
/// <para>Writes never take a lock. Reads take the arena's read lock, so that reads are
/// serialized: each slot only grows and each read visits every slot after the read before it
/// did, so a read's result never goes down, and no value is lost or counted twice.</para>
/// <para>The write path's fields sit in this base class rather than in an object of their own, so
/// that an add through a bound series reaches its slot with one load less.</para>
/// </remarks>
public abstract unsafe class PartitionedSeries
{
    // Fields ordered and sized so that the object is 64 bytes: every series has one.

    // Per processor: the series' first slot in region 0 and the chunk's region stride.
    private readonly long* _slotInRegion0;
    private readonly nint _regionStride;

    // Where the slots are (per thread: the first range); the chunk holds its memory alive.
    private readonly ArenaChunk _chunk;
    private readonly int _firstSlot;

    // The discriminator: which of the fields above an add uses, and how.
    private readonly WritePath _writePath;

    // Slots per series: 1 for a counter (the sum), 2 for an operation (the count, then the sum).
    private readonly byte _slotCount;

    // Per thread: the current slots, replaced (under the arena's read lock) where a thread index
    // is past their regions; null otherwise.
    private PerThreadSlots? _threadSlots;

    private protected PartitionedSeries(TagSet tags, PartitionArena arena, int slotCount)
    {
        Tags = tags;
        _writePath = arena.WritePath;
        _slotCount = checked((byte)slotCount);
        SlotRange slots = arena.Allocate(slotCount);
        _chunk = slots.Chunk;
        _firstSlot = slots.FirstSlot;
        if (_writePath == WritePath.PerThread)
        {
            _threadSlots = new PerThreadSlots(slots, []);
        }
        else
        {
            _slotInRegion0 = slots.SlotInRegion0;
            _regionStride = _chunk.RegionStride;
        }
    }

    /// <summary>The tags that name this series.</summary>
    public TagSet Tags { get; }

    /// <summary>The strategy this series was created with.</summary>
    internal PartitionStrategy Strategy => _writePath == WritePath.PerThread ? PartitionStrategy.PerThread : PartitionStrategy.PerProcessor;

    /// <summary>How this series takes an add.</summary>
    internal WritePath WritePath => _writePath;

    /// <summary>Where the series' slots are now.</summary>
    internal SlotRange Slots => _threadSlots?.Range ?? new SlotRange(_chunk, _firstSlot);

    /// <summary>The regions the series' slots are in now (per thread: thread indexes with a slot).</summary>
    internal int RegionCount => Slots.Chunk.RegionCount;

    /// <summary>Per thread: the regions of the current slots and the outgrown ones together; otherwise <see cref="RegionCount"/>.</summary>
    internal int TotalRegionCount => Volatile.Read(ref _threadSlots)?.TotalRegionCount ?? RegionCount;

    /// <summary>Adds <paramref name="value"/> (zero or positive) to slot <paramref name="slot"/> of the calling partition.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private protected void Add(int slot, long value)
    {
        // The default path first, with the one field that tells it apart; then per thread.
        WritePath writePath = _writePath;
        if (writePath == WritePath.RestartableSequence)
        {
            if (!RestartableWritePath.TryAdd(_slotInRegion0 + slot, _regionStride, value))
            {
                RestartableWritePath.AddToOverflowRegion(new SlotRange(_chunk, _firstSlot), slot, value);
            }

            return;
        }

        if (writePath == WritePath.PerThread)
        {
            long* threadSlot = _threadSlots!.SlotOf(ThreadLease.CurrentIndex);
            if (threadSlot == null)
            {
                threadSlot = GetNewThreadSlot();
            }

            SaturatingCell.AddSingleWriter(threadSlot + slot, value);
            return;
        }

        InterlockedWritePath.Add(_slotInRegion0 + slot, _regionStride, value);
    }

    /// <summary>Adds <paramref name="first"/> to slot 0 and <paramref name="second"/> to slot 1 of the calling partition (both zero or positive).</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private protected void AddPair(long first, long second)
    {
        // In the same order as Add.
        WritePath writePath = _writePath;
        if (writePath == WritePath.RestartableSequence)
        {
            // Two sequences, each of which commits once: the two may land in two processors'
            // regions if the thread moves between them, and each is still exact.
            Add(0, first);
            Add(1, second);
            return;
        }

        if (writePath == WritePath.PerThread)
        {
            long* threadSlot = _threadSlots!.SlotOf(ThreadLease.CurrentIndex);
            if (threadSlot == null)
            {
                threadSlot = GetNewThreadSlot();
            }

            SaturatingCell.AddSingleWriter(threadSlot, first);
            SaturatingCell.AddSingleWriter(threadSlot + 1, second);
            return;
        }

        long* processorSlot = InterlockedWritePath.CurrentSlot(_slotInRegion0, _regionStride);
        SaturatingCell.AddAtomic(processorSlot, first);
        SaturatingCell.AddAtomic(processorSlot + 1, second);
    }

    /// <summary>Sums slot <paramref name="slot"/> over every partition, saturating. Thread-safe; serialized with other reads of the registry.</summary>
    private protected long ReadSlot(int slot)
    {
        lock (_chunk.Arena.ReadLock)
        {
            return SumSlot(slot);
        }
    }

    /// <summary>Sums slots 0 and 1 over every partition, each exact as of some instant during the read, not necessarily the same one.</summary>
    private protected (long First, long Second) ReadPair()
    {
        lock (_chunk.Arena.ReadLock)
        {
            return (SumSlot(0), SumSlot(1));
        }
    }

    /// <summary>
    /// Sums <paramref name="slotsPerSeries"/> slots of every series of <paramref name="arena"/> in
    /// <paramref name="series"/> into <paramref name="totals"/> (series i's slot k at
    /// i × <paramref name="slotsPerSeries"/> + k): chunk by chunk, region by region, vectorized.
    /// Serialized with every other read of the arena.
    /// </summary>
    private protected static void ReadAll(PartitionArena arena, IReadOnlyList<PartitionedSeries> series, int slotsPerSeries, Span<long> totals)
    {
        lock (arena.ReadLock)
        {
            var ranges = new SlotRange[series.Count];
            List<(int Series, PerThreadSlots Slots)>? outgrown = null;
            for (int i = 0; i < ranges.Length; i++)
            {
                // Per thread, one read of the current slots gives both the range and its outgrown ones.
                if (Volatile.Read(ref series[i]._threadSlots) is { } threadSlots)
                {
                    ranges[i] = threadSlots.Range;
                    if (threadSlots.Outgrown.Length > 0)
                    {
                        (outgrown ??= []).Add((i, threadSlots));
                    }
                }
                else
                {
                    ranges[i] = new SlotRange(series[i]._chunk, series[i]._firstSlot);
                }
            }

            arena.SumRanges(ranges, slotsPerSeries, totals);
            foreach ((int index, PerThreadSlots threadSlots) in outgrown ?? [])
            {
                for (int k = 0; k < slotsPerSeries; k++)
                {
                    ref long total = ref totals[(index * slotsPerSeries) + k];
                    foreach (PerThreadSlots old in threadSlots.Outgrown)
                    {
                        total = SaturatingSum.Add(total, old.Range.Chunk.SumSlot(old.Range.FirstSlot + k));
                    }
                }
            }
        }
    }

    private long SumSlot(int slot)
    {
        if (Volatile.Read(ref _threadSlots) is not { } threadSlots)
        {
            return _chunk.SumSlot(_firstSlot + slot);
        }

        long sum = threadSlots.Range.Chunk.SumSlot(threadSlots.Range.FirstSlot + slot);
        foreach (PerThreadSlots old in threadSlots.Outgrown)
        {
            sum = SaturatingSum.Add(sum, old.Range.Chunk.SumSlot(old.Range.FirstSlot + slot));
        }

        return sum;
    }

    // Per thread, where the thread has no index yet, or its index is past the current slots'
    // regions: takes an index, and moves the series to slots with enough regions if need be.
    [MethodImpl(MethodImplOptions.NoInlining)]
    private long* GetNewThreadSlot()
    {
        int index = ThreadLease.AcquireIndexForCurrentThread();
        long* threadSlot = Volatile.Read(ref _threadSlots)!.SlotOf(index);
        if (threadSlot != null)
        {
            return threadSlot;
        }

        PartitionArena arena = _chunk.Arena;
        lock (arena.ReadLock)
        {
            PerThreadSlots current = _threadSlots!;
            threadSlot = current.SlotOf(index);
            if (threadSlot == null)
            {
                // Not copied: writers that read the old slots may still add to them (see PerThreadSlots).
                SlotRange range = arena.Allocate(_slotCount, Math.Max(index + 1, ThreadLease.IndexCount));
                var moved = new PerThreadSlots(range, [.. current.Outgrown, current]);
                Volatile.Write(ref _threadSlots, moved);
                threadSlot = moved.SlotOf(index);
            }
        }

        return threadSlot;
    }
}
