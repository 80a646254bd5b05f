using System.Runtime.CompilerServices;
using ScalableMetrics.Cells;
using ScalableMetrics.Exemplars;
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
/// index's region (<see cref="ArenaChunk.ThreadSlot"/>). Every write saturates at
/// <see cref="long.MaxValue"/>.</para>
/// <para>Writes never take a lock. Reads take the arena's read lock, so that reads are
/// serialized: each slot only grows and each read visits every slot after the read before it
/// did, so a read's result never goes down, and no value is lost or counted twice.</para>
/// <para>The write path's fields sit in this base class rather than in an object of their own, so
/// that an add through a bound series reaches its slot with one load less.</para>
/// </remarks>
public abstract unsafe class PartitionedSeries : Series
{
    // Fields ordered and sized so that the object is 56 bytes: every series has one.

    // The series' first slot in region 0 of its chunk. Per thread it moves, with _chunk, to a
    // successor generation when a thread index is past the chunk's regions: written before
    // _threadRegionCount, which an add reads first, so an add never sees more regions than the
    // pointer it then reads can carry (a pointer to an older generation is still a slot reads sum).
    private long* _slotInRegion0;

    // Where the slots are; the chunk holds its memory alive. Per thread, the chunk is replaced
    // by a successor with more regions (under the arena's read lock): the same slot offset and
    // stride in every generation, and reads sum every generation.
    private ArenaChunk _chunk;
    private readonly int _firstSlot;

    // Per thread: the regions of the chunk _slotInRegion0 points into (see above); 0 otherwise.
    private int _threadRegionCount;

    // The region stride is 1 << _regionStrideShift bytes, the same in every generation.
    private readonly byte _regionStrideShift;

    // What _writePath holds for a series that keeps exemplars: none of the write paths, so that
    // Add, AddDouble and AddCountAndDouble reach it only after their per-thread and restartable
    // tests fail, where the interlocked path would start, and take their Sampled method there.
    private const WritePath Sampled = (WritePath)0x80;

    // The discriminator: which of the fields above an add uses, and how; or Sampled.
    private readonly WritePath _writePath;

    // Null unless the series keeps exemplars; then its adds reach OfferExemplar.
    private readonly ExemplarReservoir? _exemplars;

    /// <summary>Creates the series' slots in <paramref name="arena"/>.</summary>
    /// <param name="tags">The series' tags.</param>
    /// <param name="arena">Where its slots are.</param>
    /// <param name="slotCount">How many slots it takes in each region.</param>
    /// <param name="exemplarFilter">Which adds keep an exemplar (<see cref="ExemplarFilter.None"/>: none). Only a
    /// series that adds through <c>Add</c>, <c>AddDouble</c> or <c>AddCountAndDouble</c> alone may keep
    /// them: the other primitives do not look for the exemplar series' discriminator.</param>
    /// <param name="exemplarSlotCount">The exemplars it keeps per partition: one per slot an add offers (a counter's 1, a histogram's buckets).</param>
    private protected PartitionedSeries(TagSet tags, PartitionArena arena, int slotCount, ExemplarFilter exemplarFilter = ExemplarFilter.None, int exemplarSlotCount = 0)
        : base(tags)
    {
        _exemplars = ExemplarReservoir.Create(exemplarFilter, exemplarSlotCount);

        // An exemplar costs an add nothing when off, not even a test: a series that keeps none runs
        // the write paths as they were, and one that keeps them is told apart by a value of the
        // discriminator the add tests anyway (a test of a field of its own after the add cost the
        // bound counter add 0.2 ns of 1.0, per thread 0.4 of 1.3: perf/results/README.md).
        _writePath = _exemplars is null ? arena.WritePath : Sampled;
        SlotRange slots = arena.Allocate(slotCount);
        _chunk = slots.Chunk;
        _firstSlot = slots.FirstSlot;
        _slotInRegion0 = slots.SlotInRegion0;
        _regionStrideShift = checked((byte)_chunk.RegionStrideShift);
        if (arena.WritePath == WritePath.PerThread)
        {
            _threadRegionCount = _chunk.RegionCount;
        }
    }

    /// <summary>The strategy this series was created with.</summary>
    internal PartitionStrategy Strategy => WritePath == WritePath.PerThread ? PartitionStrategy.PerThread : PartitionStrategy.PerProcessor;

    /// <summary>How this series takes an add: its registry's write path, whether it keeps exemplars or not.</summary>
    internal WritePath WritePath => _writePath == Sampled ? Volatile.Read(ref _chunk).Arena.WritePath : _writePath;

    /// <summary>Where the series' slots are now.</summary>
    internal SlotRange Slots => new(Volatile.Read(ref _chunk), _firstSlot);

    /// <summary>The regions the series' slots are in now (per thread: thread indexes with a slot).</summary>
    internal int RegionCount => Slots.Chunk.RegionCount;

    /// <summary>Per thread: the regions of every generation of the series' chunk, the outgrown ones included (what a read sums); otherwise <see cref="RegionCount"/>.</summary>
    internal int TotalRegionCount => Volatile.Read(ref _chunk).FirstGeneration.TotalRegionCount();

    /// <summary>Adds <paramref name="value"/> (zero or positive) to slot <paramref name="slot"/> of the calling partition.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private protected void Add(int slot, long value) => Add(_writePath, slot, value, mayBeSampled: true);

    // Add through writePath: the series' discriminator (mayBeSampled), or (from AddSampled) its
    // registry's write path. The test for Sampled reads the field again rather than writePath: kept
    // live to the end, writePath took a register the restartable path of AddCountAndDouble then
    // lacked, and it spilled a value to the stack and back on every record (seen in the JIT's output).
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private void Add(WritePath writePath, int slot, long value, bool mayBeSampled)
    {
        // Per thread tested first, then the restartable sequence. The order is the JIT's
        // layout of the three inlined paths, not their frequency: with the restartable test
        // first, the per-thread add ran markedly slower in the scaling harness, while per
        // thread first costs the restartable add one compare (perf/results/README.md).
        if (writePath == WritePath.PerThread)
        {
            // Straight-line where the thread's index has a region (one bounds check), from the
            // series' own fields: a pointer the fast path might leave null cost a test and two
            // taken jumps, and reaching the chunk's fields three loads and a multiply, on every
            // add (seen in the JIT's output, and measured: perf/results/README.md).
            int regionCount = Volatile.Read(ref _threadRegionCount);
            int index = ThreadLease.CurrentIndex;
            if ((uint)index < (uint)regionCount)
            {
                SaturatingCell.AddSingleWriter((long*)((byte*)_slotInRegion0 + ((nint)index << _regionStrideShift)) + slot, value);
                return;
            }

            SaturatingCell.AddSingleWriter(GetNewThreadSlot() + slot, value);
            return;
        }

        if (writePath == WritePath.RestartableSequence)
        {
            // Written out here rather than through AddRestartable: the same code, but calling
            // the helper changed the JIT's layout of this method, and the restartable add ran
            // at 0.84 of its former ratio in the scaling harness (perf/results/README.md).
            long* slotInRegion0 = _slotInRegion0 + slot;
            nint regionStride = (nint)1 << _regionStrideShift;
            if (!RestartableWritePath.TryAdd(slotInRegion0, regionStride, value))
            {
                RestartableWritePath.AddToOverflowRegion(slotInRegion0, regionStride, _chunk.RegionCount - 1, value);
            }

            return;
        }

        if (mayBeSampled && _writePath == Sampled)
        {
            AddSampled(slot, value);
            return;
        }

        InterlockedWritePath.Add(_slotInRegion0 + slot, (nint)1 << _regionStrideShift, value);
    }

    // The add of a series that keeps exemplars: through its registry's write path, then the offer.
    [MethodImpl(MethodImplOptions.NoInlining)]
    private void AddSampled(int slot, long value)
    {
        Add(Volatile.Read(ref _chunk).Arena.WritePath, slot, value, mayBeSampled: false);
        OfferExemplar(slot, value);
    }

    /// <summary>The series' exemplars, or null where it keeps none.</summary>
    internal ExemplarReservoir? Exemplars => _exemplars;

    // After each add of a series that keeps exemplars, with the slot added to (a counter's 0, a
    // histogram's bucket) and the value: kept if the filter samples it.
    private void OfferExemplar(int slot, double value) => _exemplars!.Offer(slot, value);

    // The restartable write path for AddPair: a plain add to the calling processor's region
    // inside a restartable sequence; where the processor has no region, an atomic add to the
    // overflow region, the chunk's last. (Add writes the same code out; see there.)
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private void AddRestartable(int slot, long value)
    {
        long* slotInRegion0 = _slotInRegion0 + slot;
        nint regionStride = (nint)1 << _regionStrideShift;
        if (!RestartableWritePath.TryAdd(slotInRegion0, regionStride, value))
        {
            RestartableWritePath.AddToOverflowRegion(slotInRegion0, regionStride, _chunk.RegionCount - 1, value);
        }
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
            AddRestartable(0, first);
            AddRestartable(1, second);
            return;
        }

        if (writePath == WritePath.PerThread)
        {
            // As in Add.
            int regionCount = Volatile.Read(ref _threadRegionCount);
            int index = ThreadLease.CurrentIndex;
            long* threadSlot = (uint)index < (uint)regionCount ? (long*)((byte*)_slotInRegion0 + ((nint)index << _regionStrideShift)) : GetNewThreadSlot();
            SaturatingCell.AddSingleWriter(threadSlot, first);
            SaturatingCell.AddSingleWriter(threadSlot + 1, second);
            return;
        }

        long* processorSlot = InterlockedWritePath.CurrentSlot(_slotInRegion0, (nint)1 << _regionStrideShift);
        SaturatingCell.AddAtomic(processorSlot, first);
        SaturatingCell.AddAtomic(processorSlot + 1, second);
    }

    /// <summary>Adds <paramref name="first"/> to slot <paramref name="firstSlot"/> and <paramref name="second"/> to slot <paramref name="secondSlot"/> of the calling partition (both zero or positive, both saturating): a bucket count and a total.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private protected void AddTwo(int firstSlot, long first, int secondSlot, long second)
    {
        WritePath writePath = _writePath;
        if (writePath == WritePath.PerThread)
        {
            long* threadSlot = ThreadSlotInRegion0();
            SaturatingCell.AddSingleWriter(threadSlot + firstSlot, first);
            SaturatingCell.AddSingleWriter(threadSlot + secondSlot, second);
            return;
        }

        if (writePath == WritePath.RestartableSequence)
        {
            AddRestartable(firstSlot, first);
            AddRestartable(secondSlot, second);
            return;
        }

        long* processorSlot = InterlockedWritePath.CurrentSlot(_slotInRegion0, (nint)1 << _regionStrideShift);
        SaturatingCell.AddAtomic(processorSlot + firstSlot, first);
        SaturatingCell.AddAtomic(processorSlot + secondSlot, second);
    }

    /// <summary>Adds <paramref name="value"/>, of either sign, to slot <paramref name="slot"/> of the calling partition, wrapping (<see cref="SlotSum.Wrapping"/>): the slot's wrapping sum over partitions is the exact total whenever that fits a <see cref="long"/>.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private protected void AddWrapping(int slot, long value)
    {
        WritePath writePath = _writePath;
        if (writePath == WritePath.PerThread)
        {
            WrappingCell.AddSingleWriter(ThreadSlotInRegion0() + slot, value);
            return;
        }

        long* slotInRegion0 = _slotInRegion0 + slot;
        nint regionStride = (nint)1 << _regionStrideShift;
        if (writePath == WritePath.RestartableSequence)
        {
            if (!RestartableWritePath.TryAddWrapping(slotInRegion0, regionStride, value))
            {
                RestartableWritePath.AddWrappingToOverflowRegion(slotInRegion0, regionStride, _chunk.RegionCount - 1, value);
            }

            return;
        }

        InterlockedWritePath.AddWrapping(slotInRegion0, regionStride, value);
    }

    /// <summary>Adds <paramref name="value"/> (finite: callers refuse NaN) to the <see cref="double"/> slot <paramref name="slot"/> of the calling partition (<see cref="SlotSum.Double"/>).</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private protected void AddDouble(int slot, double value) => AddDouble(_writePath, slot, value, mayBeSampled: true);

    // AddDouble through writePath, as Add.
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private void AddDouble(WritePath writePath, int slot, double value, bool mayBeSampled)
    {
        if (writePath == WritePath.PerThread)
        {
            DoubleCell.AddSingleWriter(ThreadSlotInRegion0() + slot, value);
            return;
        }

        long* slotInRegion0 = _slotInRegion0 + slot;
        nint regionStride = (nint)1 << _regionStrideShift;
        if (writePath == WritePath.RestartableSequence)
        {
            if (!RestartableWritePath.TryAddDouble(slotInRegion0, regionStride, value))
            {
                RestartableWritePath.AddDoubleToOverflowRegion(slotInRegion0, regionStride, _chunk.RegionCount - 1, value);
            }

            return;
        }

        if (mayBeSampled && _writePath == Sampled)
        {
            AddDoubleSampled(slot, value);
            return;
        }

        InterlockedWritePath.AddDouble(slotInRegion0, regionStride, value);
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private void AddDoubleSampled(int slot, double value)
    {
        AddDouble(Volatile.Read(ref _chunk).Arena.WritePath, slot, value, mayBeSampled: false);
        OfferExemplar(slot, value);
    }

    /// <summary>Adds 1 to slot <paramref name="countSlot"/> (saturating) and <paramref name="value"/> to the <see cref="double"/> slot <paramref name="doubleSlot"/> of the calling partition: a histogram's bucket count and sum. Each lands exactly once, not necessarily in the same partition.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private protected void AddCountAndDouble(int countSlot, int doubleSlot, double value) => AddCountAndDouble(_writePath, countSlot, doubleSlot, value, mayBeSampled: true);

    // AddCountAndDouble through writePath, as Add; the exemplar offered is the count slot's (a histogram's bucket).
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private void AddCountAndDouble(WritePath writePath, int countSlot, int doubleSlot, double value, bool mayBeSampled)
    {
        if (writePath == WritePath.PerThread)
        {
            long* threadSlot = ThreadSlotInRegion0();
            SaturatingCell.AddSingleWriter(threadSlot + countSlot, 1);
            DoubleCell.AddSingleWriter(threadSlot + doubleSlot, value);
            return;
        }

        nint regionStride = (nint)1 << _regionStrideShift;
        if (writePath == WritePath.RestartableSequence)
        {
            // Two sequences, each of which commits once (as in AddPair).
            AddRestartable(countSlot, 1);
            long* sumInRegion0 = _slotInRegion0 + doubleSlot;
            if (!RestartableWritePath.TryAddDouble(sumInRegion0, regionStride, value))
            {
                RestartableWritePath.AddDoubleToOverflowRegion(sumInRegion0, regionStride, _chunk.RegionCount - 1, value);
            }

            return;
        }

        if (mayBeSampled && _writePath == Sampled)
        {
            AddCountAndDoubleSampled(countSlot, doubleSlot, value);
            return;
        }

        long* processorSlot = InterlockedWritePath.CurrentSlot(_slotInRegion0, regionStride);
        SaturatingCell.AddAtomic(processorSlot + countSlot, 1);
        DoubleCell.AddAtomic(processorSlot + doubleSlot, value);
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private void AddCountAndDoubleSampled(int countSlot, int doubleSlot, double value)
    {
        AddCountAndDouble(Volatile.Read(ref _chunk).Arena.WritePath, countSlot, doubleSlot, value, mayBeSampled: false);
        OfferExemplar(countSlot, value);
    }

    /// <summary>Sums the wrapping slot <paramref name="slot"/> over every partition. Thread-safe; serialized with other reads of the registry.</summary>
    private protected long ReadSlotWrapping(int slot)
    {
        lock (_chunk.Arena.ReadLock)
        {
            return Volatile.Read(ref _chunk).FirstGeneration.SumSlotWrapping(_firstSlot + slot);
        }
    }

    /// <summary>Sums the <see cref="double"/> slot <paramref name="slot"/> over every partition. Thread-safe; serialized with other reads of the registry.</summary>
    private protected double ReadSlotDouble(int slot)
    {
        lock (_chunk.Arena.ReadLock)
        {
            return Volatile.Read(ref _chunk).FirstGeneration.SumSlotDouble(_firstSlot + slot);
        }
    }

    /// <summary>Sums the saturating slots <paramref name="firstSlot"/> to <paramref name="firstSlot"/> + <paramref name="counts"/>.Length - 1 into <paramref name="counts"/> and the <see cref="double"/> slot <paramref name="doubleSlot"/> into the result, under one hold of the read lock.</summary>
    private protected double ReadSlotsAndDouble(int firstSlot, Span<long> counts, int doubleSlot)
    {
        lock (_chunk.Arena.ReadLock)
        {
            ArenaChunk first = Volatile.Read(ref _chunk).FirstGeneration;
            for (int i = 0; i < counts.Length; i++)
            {
                counts[i] = first.SumSlot(_firstSlot + firstSlot + i);
            }

            return first.SumSlotDouble(_firstSlot + doubleSlot);
        }
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
    /// i × <paramref name="slotsPerSeries"/> + k), saturating: chunk by chunk, region by region,
    /// vectorized. Serialized with every other read of the arena.
    /// </summary>
    private protected static void ReadAll(PartitionArena arena, IReadOnlyList<PartitionedSeries> series, int slotsPerSeries, Span<long> totals) =>
        ReadAll(arena, series, slotsPerSeries, totals, SlotSum.Saturating);

    /// <summary>
    /// As <see cref="ReadAll(PartitionArena, IReadOnlyList{PartitionedSeries}, int, Span{long})"/>,
    /// every slot summed by <paramref name="kind"/> (<see cref="SlotSum.Double"/>: the totals are doubles' bits).
    /// </summary>
    private protected static void ReadAll(PartitionArena arena, IReadOnlyList<PartitionedSeries> series, int slotsPerSeries, Span<long> totals, SlotSum kind)
    {
        lock (arena.ReadLock)
        {
            arena.SumRanges(RangesOf(series), slotsPerSeries, totals, kind);
        }
    }

    /// <summary>
    /// Reads every series in <paramref name="series"/> of <paramref name="arena"/>: its
    /// <paramref name="slotsPerSeries"/> slots summed saturating into <paramref name="totals"/>
    /// (as <see cref="ReadAll(PartitionArena, IReadOnlyList{PartitionedSeries}, int, Span{long})"/>), except
    /// its <see cref="double"/> slot <paramref name="doubleSlot"/>, summed as doubles into
    /// <paramref name="doubles"/>[i]; under one hold of the read lock (a histogram: bucket counts and sum).
    /// </summary>
    private protected static void ReadAllWithDouble(PartitionArena arena, IReadOnlyList<PartitionedSeries> series, int slotsPerSeries, int doubleSlot, Span<long> totals, Span<double> doubles)
    {
        lock (arena.ReadLock)
        {
            SlotRange[] ranges = RangesOf(series);
            arena.SumRanges(ranges, slotsPerSeries, totals, SlotSum.Saturating);
            for (int i = 0; i < ranges.Length; i++)
            {
                // A strided walk of one slot per series: cheaper than summing every slot again as doubles.
                doubles[i] = ranges[i].Chunk.FirstGeneration.SumSlotDouble(ranges[i].FirstSlot + doubleSlot);
            }
        }
    }

    // Where each series' slots are now; per thread, a range's chunk may be any generation, and the arena sums them all.
    private static SlotRange[] RangesOf(IReadOnlyList<PartitionedSeries> series)
    {
        var ranges = new SlotRange[series.Count];
        for (int i = 0; i < ranges.Length; i++)
        {
            ranges[i] = new SlotRange(Volatile.Read(ref series[i]._chunk), series[i]._firstSlot);
        }

        return ranges;
    }

    // Per thread: the calling thread's slot 0 of this series, taking an index or widening the chunk if need be (as Add does).
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private long* ThreadSlotInRegion0()
    {
        int regionCount = Volatile.Read(ref _threadRegionCount);
        int index = ThreadLease.CurrentIndex;
        return (uint)index < (uint)regionCount ? (long*)((byte*)_slotInRegion0 + ((nint)index << _regionStrideShift)) : GetNewThreadSlot();
    }

    private long SumSlot(int slot) => Volatile.Read(ref _chunk).FirstGeneration.SumSlot(_firstSlot + slot);

    // Per thread, where the thread has no index yet, or its index is past the chunk's regions:
    // takes an index, and moves the series to a generation of its chunk with enough regions if
    // need be. Nothing is copied: writers that read the old chunk may still add to it, and reads
    // sum every generation.
    [MethodImpl(MethodImplOptions.NoInlining)]
    private long* GetNewThreadSlot()
    {
        int index = ThreadLease.AcquireIndexForCurrentThread();
        long* threadSlot = Volatile.Read(ref _chunk).ThreadSlot(index, _firstSlot);
        if (threadSlot != null)
        {
            return threadSlot;
        }

        PartitionArena arena = _chunk.Arena;
        lock (arena.ReadLock)
        {
            // Under the lock, so that the chunk only ever moves to a later generation.
            ArenaChunk current = _chunk;
            threadSlot = current.ThreadSlot(index, _firstSlot);
            if (threadSlot == null)
            {
                ArenaChunk wider = arena.Widen(current, Math.Max(index + 1, ThreadLease.IndexCount));
                Volatile.Write(ref _chunk, wider);

                // The pointer first, then the count that lets adds use it (see the fields): the
                // count's volatile write is a release, so no add that reads the new count reads
                // the old pointer.
                _slotInRegion0 = wider.SlotAddress(0, _firstSlot);
                Volatile.Write(ref _threadRegionCount, wider.RegionCount);
                threadSlot = wider.ThreadSlot(index, _firstSlot);
            }
        }

        return threadSlot;
    }
}
