using System.Diagnostics;
using System.Diagnostics.CodeAnalysis;
using System.Numerics;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using ScalableMetrics.Cells;
using ScalableMetrics.Diagnostics;
using ScalableMetrics.Exemplars;
using ScalableMetrics.Instruments;
using ScalableMetrics.SeriesTables;
using ScalableMetrics.Snapshots;

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
/// registry's <see cref="Diagnostics.WritePath"/>, told apart by one field, the series' route: a
/// plain add inside a restartable sequence (<see cref="RestartableWritePath"/>), an atomic add on
/// the cached processor id's region (<see cref="InterlockedWritePath"/>), or a plain store to the
/// thread index's region (<see cref="PerThreadWritePath"/>). The dispatch is written once, for one
/// slot and for two, generic over how the slot adds (<see cref="ISlotOperation{TValue}"/>:
/// saturating, wrapping or <see cref="double"/>).</para>
/// <para>Writes never take a lock. Reads take the arena's read lock, so that reads are
/// serialized: each slot only grows and each read visits every slot after the read before it
/// did, so a read's result never goes down, and no value is lost or counted twice.</para>
/// <para>With <see cref="SeriesStorage.Adaptive"/> (the default) a series starts compact: one copy of
/// its slots in the arena's compact arena, which every writer adds to atomically
/// (<see cref="ISlotOperation{TValue}.AddCompact"/>: one <c>lock xadd</c> for integers, one
/// compare-and-swap for doubles). It is promoted (<see cref="Promote"/>) when it proves shared and
/// hot: two different threads make its total cross a multiple of 2^(10 + log2 |value|), about every
/// 1,024 adds, within <see cref="SharedWritesWindowMilliseconds"/> of each other (the write-rate
/// rule of the kernel's lazy percpu counter, checked out of line, with the writer's identity added
/// so that one busy thread keeps its series compact), or a double's compare-and-swap fails (two
/// writers met on the slot: java.util.concurrent's <c>Striped64</c> rule). Zeroed per-partition
/// slots are allocated and published, then the route changes, and from then on its adds take the
/// registry's write path. The compact copy is kept and read for good, so an add is in exactly one
/// of the two copies, and a read sums both (as <c>Striped64</c>'s base cell stays beside the cells
/// it spreads to).</para>
/// <para>The write path's fields sit in this base class rather than in an object of their own, so
/// that an add through a bound series reaches its slot with one load less.</para>
/// </remarks>
public abstract unsafe class PartitionedSeries : Series
{
    // Fields sized so that a counter's series object is 72 bytes: every series has one. State that
    // only one phase of a series needs shares a field with another phase's (the write-rate rule's
    // last crossing is _threadRegionCount while compact), and a sampled series' storage route is
    // kept by its reservoir.

    /// <summary>How close in time two different threads' crossings of a compact series must be for it to be promoted (<see cref="NoteCrossing"/>), in milliseconds: about 10,000 adds a second or more, from two threads or more.</summary>
    internal const int SharedWritesWindowMilliseconds = 100;

    // A last crossing (NoteCrossing), held in _threadRegionCount while the series is compact: the
    // sign bit set, so that it is never a region count (1 or more) nor 0 (no crossing yet), then
    // TimeBits bits of Environment.TickCount64 and WriterBits of the managed thread id that made
    // it. The time wraps every 2^19 ms (about 8.7 minutes), far more than the window it is
    // compared within; two threads whose ids share their low bits count as one.
    private const int CrossingMark = int.MinValue;
    private const int WriterBits = 12;
    private const int TimeBits = 31 - WriterBits;
    private const int WriterMask = (1 << WriterBits) - 1;
    private const int TimeMask = (1 << TimeBits) - 1;

    // The series' first slot in region 0 of its per-partition chunk; null while it is compact. Per
    // thread it moves, with _chunk, to a successor generation when a thread index is past the
    // chunk's regions: written before _threadRegionCount, which an add reads first, so an add never
    // sees more regions than the pointer it then reads can carry (a pointer to an older generation
    // is still a slot reads sum). Written before the route on promotion, so that no add routed to
    // the partitions reads it null.
    private long* _slotInRegion0;

    // The series' compact slots (in the arena's compact arena), which every writer adds to
    // atomically while the series is compact, and which reads sum for good; null where the
    // registry keeps every series per partition from creation.
    private readonly long* _compactSlots;

    // Where the per-partition slots are, or, while the series is compact, its compact chunk; the
    // chunk holds its memory alive. Per thread, the chunk is replaced by a successor with more
    // regions (under the arena's read lock): the same slot offset and stride in every generation,
    // and reads sum every generation.
    private ArenaChunk _chunk;

    // Null unless the series keeps exemplars; then its adds reach OfferExemplar.
    private readonly ExemplarReservoir? _exemplars;

    // The first slot in _chunk: per partition once promoted, compact before.
    private int _firstSlot;

    // Per thread, once per partition: the regions of the chunk _slotInRegion0 points into (see
    // above). While the series is compact, the last crossing of its compact slots (CrossingMark;
    // 0 before the first), written out of line only, about once per 1,024 adds, by whichever
    // writer crossed, and only by a compare-and-swap from a value that is not a region count, so
    // that it never overwrites the count a per-thread promotion publishes. Otherwise 0.
    private int _threadRegionCount;

    // The slots the series takes in each region: at most a few hundred (a histogram's
    // HistogramBuckets.MaxBoundaryCount, an exponential histogram's ExponentialBuckets.MaxBucketCount).
    private readonly ushort _slotCount;

    // The region stride is 1 << _regionStrideShift bytes, the same in every generation.
    private byte _regionStrideShift;

    // How an add reaches its slot: the one field the dispatch tests. Compact until promoted. A
    // series that keeps exemplars has Sampled here, and its storage route (Compact until promoted,
    // then the registry's write path) in its reservoir (ExemplarReservoir.StorageRoute).
    private Route _route;

    /// <summary>Creates the series' slots in <paramref name="arena"/>.</summary>
    /// <param name="tags">The series' tags.</param>
    /// <param name="arena">Where its slots are.</param>
    /// <param name="slotCount">How many slots it takes in each region.</param>
    /// <param name="exemplarFilter">Which adds keep an exemplar (<see cref="ExemplarFilter.None"/>: none).</param>
    /// <param name="exemplarSlotCount">The exemplars it keeps per partition: one per slot an add offers (a counter's 1, a histogram's buckets).</param>
    private protected PartitionedSeries(TagSet tags, PartitionArena arena, int slotCount, ExemplarFilter exemplarFilter = ExemplarFilter.None, int exemplarSlotCount = 0)
        : this(tags, arena, slotCount, ExemplarReservoir.Create(exemplarFilter, exemplarSlotCount))
    {
    }

    /// <summary>Creates the series' slots in <paramref name="arena"/>, with the exemplars given.</summary>
    /// <param name="tags">The series' tags.</param>
    /// <param name="arena">Where its slots are.</param>
    /// <param name="slotCount">How many slots it takes in each region.</param>
    /// <param name="exemplars">Its exemplars, offered every add, or null where it keeps none.</param>
    private protected PartitionedSeries(TagSet tags, PartitionArena arena, int slotCount, ExemplarReservoir? exemplars)
        : base(tags)
    {
        Debug.Assert(arena.Compact != arena, "series are created in a per-partition arena, which has its compact one");
        Debug.Assert(slotCount is > 0 and <= ushort.MaxValue, "a series takes at most a few hundred slots");
        _exemplars = exemplars;
        _slotCount = (ushort)slotCount;
        Route storageRoute;
        if (arena.StartsCompact)
        {
            SlotRange compact = arena.Compact.Allocate(slotCount);
            _compactSlots = compact.SlotInRegion0;
            _chunk = compact.Chunk;
            _firstSlot = compact.FirstSlot;
            storageRoute = Route.Compact;
        }
        else
        {
            UsePartitionSlots(arena.Allocate(slotCount));
            storageRoute = RouteOf(arena.WritePath);
        }

        // An exemplar costs an add nothing when off, not even a test: a series that keeps none runs
        // the write paths as they were, and one that keeps them is told apart by a route the add
        // tests anyway, where the Interlocked path would start (a test of a field of its own after
        // the add cost the bound counter add measurably: perf/results/README.md).
        if (_exemplars is null)
        {
            _route = storageRoute;
        }
        else
        {
            _exemplars.StorageRoute = (byte)storageRoute;
            _route = Route.Sampled;
        }
    }

    // How an add reaches its slot. The write paths' routes have their values, which the dispatch
    // compares with (the restartable route 0, tested with one instruction); Sampled is apart from
    // them. A route of its own rather than the public WritePath, so that the report stays a report.
    private enum Route : byte
    {
        // RestartableWritePath.
        RestartableSequence = WritePath.RestartableSequence,

        // InterlockedWritePath.
        InterlockedProcessorId = WritePath.InterlockedProcessorId,

        // PerThreadWritePath.
        PerThread = WritePath.PerThread,

        // A series not promoted yet: one compare-and-swap on its compact slot; a failed one
        // promotes it (AddContended). Above the write paths' routes, so that the dispatch tells it
        // and Sampled from the Interlocked route with one test, where the Interlocked path would
        // start, as it told Sampled alone before: the promoted routes run the instructions they ran.
        Compact = 0x40,

        // A series that keeps exemplars: its storage route (ExemplarReservoir.StorageRoute), then the offer
        // (AddSampled). The dispatch tests for it only after the per-thread and restartable routes,
        // where the Interlocked path would start, so that a series without exemplars pays nothing for it.
        Sampled = 0x80,
    }

    /// <summary>The strategy this series was created with.</summary>
    internal PartitionStrategy Strategy => WritePath == WritePath.PerThread ? PartitionStrategy.PerThread : PartitionStrategy.PerProcessor;

    /// <summary>How this series takes an add once promoted (or from creation, per partition): its registry's write path, whether it keeps exemplars or not.</summary>
    internal WritePath WritePath => Volatile.Read(ref _chunk).Arena.WritePath;

    /// <summary>Whether the series adds to its compact slots: not promoted (yet), or a registry that keeps every series compact.</summary>
    internal bool IsCompact => StorageRoute == Route.Compact;

    /// <summary>Whether the series has compact slots: created by a registry whose series start compact.</summary>
    internal bool HasCompactSlots => _compactSlots != null;

    /// <summary>Where the series' slots are now: per partition, or, while compact, its compact slots.</summary>
    internal SlotRange Slots => new(Volatile.Read(ref _chunk), _firstSlot);

    /// <summary>The regions the series' slots are in now (per thread: thread indexes with a slot).</summary>
    internal int RegionCount => Slots.Chunk.RegionCount;

    /// <summary>Per thread: the regions of every generation of the series' chunk, the outgrown ones included (what a read sums); otherwise <see cref="RegionCount"/>.</summary>
    internal int TotalRegionCount => Volatile.Read(ref _chunk).FirstGeneration.TotalRegionCount();

    /// <summary>The series' exemplars, or null where it keeps none.</summary>
    internal ExemplarReservoir? Exemplars => _exemplars;

    /// <inheritdoc/>
    internal override RetiredSeries? Retirement => IsMarked ? RetiredSeries.Of(this) : null;

    /// <inheritdoc/>
    /// <remarks>Under the arena's read lock, which a promotion takes: from here on the series
    /// keeps the ranges the entry names (a contended add stays compact, exact), and every
    /// collection keeps its reading as the final one (<see cref="ReadAll{TSeries}"/>).</remarks>
    private protected override void Retire()
    {
        PartitionArena arena = Volatile.Read(ref _chunk).Arena.PerPartition;
        lock (arena.ReadLock)
        {
            // The entry and the mark together, under the lock a promotion takes: a promotion that
            // came between them would leave a marked series whose entry names no per-partition
            // range (its sums counted as late adds, its slots never freed).
            SlotRange? perPartition = IsCompact ? null : new SlotRange(_chunk.FirstGeneration, _firstSlot);
            RetiredSeries.Add(this, new RetiredSeries(this, arena, _compactSlots, perPartition, _slotCount, RecordCountSlots, HoldsDouble, WrapsSlots));
            SetMark();
        }
    }

    /// <inheritdoc/>
    /// <remarks>Under the arena's read lock, as <see cref="Retire"/>: a read that finds the series
    /// still marked and its entry gone keeps no final reading.</remarks>
    private protected override void Unretire()
    {
        PartitionArena arena = Volatile.Read(ref _chunk).Arena.PerPartition;
        lock (arena.ReadLock)
        {
            RetiredSeries.Remove(this);
        }
    }

    /// <summary>A histogram's or an operation's: its first slots, whose counts sum to its records (what
    /// <see cref="RetiredSeries.LateAdds"/> counts of it); 0 for a sum, whose one slot is its value.</summary>
    private protected virtual int RecordCountSlots => 0;

    /// <summary>A sum's: whether its slot holds a <see cref="double"/>'s bits rather than a <see cref="long"/>.</summary>
    private protected virtual bool HoldsDouble => false;

    /// <summary>Whether the series' <see cref="long"/> slots wrap (<see cref="WrappingCell"/>: an up-down counter's) rather than saturate at <see cref="long.MaxValue"/> (<see cref="SaturatingCell"/>), for the late adds <see cref="RetiredSeries.LateAdds"/> counts.</summary>
    private protected virtual bool WrapsSlots => false;

    /// <summary>
    /// Adds <paramref name="value"/> to slot <paramref name="slot"/> of the calling partition, as
    /// <typeparamref name="TOp"/> adds (<see cref="SaturatingCell"/>: zero or positive, stopping at
    /// <see cref="long.MaxValue"/>; <see cref="WrappingCell"/>: either sign, wrapping, so that the
    /// slot's wrapping sum over partitions is the exact total whenever that fits a <see cref="long"/>;
    /// <see cref="DoubleCell"/>: not NaN).
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private protected void Add<TOp, TValue>(int slot, TValue value)
        where TOp : struct, ISlotOperation<TValue>
        where TValue : unmanaged, INumberBase<TValue>
    {
        Add<TOp, TValue>(AcquireRoute(), slot, value, mayBeSampled: true);
        KeepUntilAdded();
    }

    /// <summary>
    /// Adds 1 to slot <paramref name="countSlot"/> (saturating) and <paramref name="value"/> to slot
    /// <paramref name="valueSlot"/> of the calling partition, as <typeparamref name="TOp"/> adds (see
    /// <see cref="Add{TOp, TValue}(int, TValue)"/>): a bucket's count and a sum. Each lands exactly
    /// once, not necessarily in the same partition.
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private protected void AddCountAndValue<TOp, TValue>(int countSlot, int valueSlot, TValue value)
        where TOp : struct, ISlotOperation<TValue>
        where TValue : unmanaged, INumberBase<TValue>
    {
        AddCountAndValue<TOp, TValue>(AcquireRoute(), countSlot, valueSlot, value, mayBeSampled: true);
        KeepUntilAdded();
    }

    /// <summary>
    /// As <see cref="AddCountAndValue{TOp, TValue}(int, int, TValue)"/>, but an exemplar the filter keeps
    /// carries <paramref name="exemplarValue"/> rather than <paramref name="value"/> (the sum still adds
    /// <paramref name="value"/>): for a record counted in a bucket its value lies just above, whose exemplar
    /// must lie within that bucket. Not the record's own path, whose machine code stays as it is.
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private protected void AddCountAndValue<TOp, TValue>(int countSlot, int valueSlot, TValue value, double exemplarValue)
        where TOp : struct, ISlotOperation<TValue>
        where TValue : unmanaged, INumberBase<TValue>
    {
        if (_exemplars is null)
        {
            AddCountAndValue<TOp, TValue>(AcquireRoute(), countSlot, valueSlot, value, mayBeSampled: false);
        }
        else
        {
            AddCountAndValueSampled<TOp, TValue>(countSlot, valueSlot, value, exemplarValue);
        }

        KeepUntilAdded();
    }

    // Keeps the series reachable until its add has stored: an add holds its slots by raw pointers,
    // which keep nothing alive, and a removed series' slots go back to the arena once the garbage
    // collector finds the series unreachable (RetiredSeries). Without this, a collection in the
    // middle of an add whose caller holds the series nowhere else (a tagged add) could find it
    // unreachable, and a series made later could be handed the slots before the add stored into
    // them. No instruction: the JIT reports the reference live to the end of the add (an intrinsic).
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private void KeepUntilAdded() => GC.KeepAlive(this);

    // The one dispatch of a single add, through route: the series' own (mayBeSampled), or (from
    // AddSampled) its storage route. Both dispatches test every route on the one value read: the
    // route changes once (compact to promoted), and a second read could see the new route after
    // fields were read for the old one (a record that re-read it took the Interlocked path with the
    // compact series' stride of 1 byte, and added 256 a byte off its slot: found by the exactness
    // tests). The JIT keeps the one read in a register from the first test to the last.
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private void Add<TOp, TValue>(Route route, int slot, TValue value, bool mayBeSampled)
        where TOp : struct, ISlotOperation<TValue>
        where TValue : unmanaged, INumberBase<TValue>
    {
        // Per thread tested first, then the restartable sequence. The order is the JIT's
        // layout of the three inlined paths, not their frequency: with the restartable test
        // first, the per-thread add ran markedly slower in the scaling harness, while per
        // thread first costs the restartable add one compare (perf/results/README.md).
        if (route == Route.PerThread)
        {
            // Straight-line where the thread's index has a region (one bounds check), from the
            // series' own fields: a pointer the fast path might leave null cost a test and two
            // taken jumps, and reaching the chunk's fields three loads and a multiply, on every
            // add (seen in the JIT's output, and measured: perf/results/README.md).
            int regionCount = Volatile.Read(ref _threadRegionCount);
            int index = ThreadLease.CurrentIndex;
            if ((uint)index < (uint)regionCount)
            {
                TOp.AddSingleWriter(PerThreadWritePath.Slot(_slotInRegion0, _regionStrideShift, index) + slot, value);
                return;
            }

            TOp.AddSingleWriter(GetNewThreadSlot() + slot, value);
            return;
        }

        if (route == Route.RestartableSequence)
        {
            // AddRestartable written out, as in the two-slot add below (why there).
            long* slotInRegion0 = _slotInRegion0 + slot;
            nint regionStride = (nint)1 << _regionStrideShift;
            if (!TOp.TryAddRestartable(slotInRegion0, regionStride, value))
            {
                RestartableWritePath.AddToOverflowRegion<TOp, TValue>(slotInRegion0, regionStride, _chunk.RegionCount - 1, value);
            }

            return;
        }

        // Compact and Sampled in one test (see Route), on the route read once (see above).
        Route special = route;
        if (special >= Route.Compact)
        {
            if (special == Route.Compact)
            {
                if (TOp.AddCompact(_compactSlots + slot, value) != 0)
                {
                    AddCompactNoticed<TOp, TValue>(slot, value);
                }

                return;
            }

            if (mayBeSampled)
            {
                AddSampled<TOp, TValue>(slot, value);
                return;
            }
        }

        AssertInterlocked(route);
        TOp.AddAtomic(InterlockedWritePath.CurrentSlot(_slotInRegion0 + slot, (nint)1 << _regionStrideShift), value);
    }

    // The one dispatch of a two-slot add, in the order of Add. Per thread, the slot pointer is
    // picked once for both adds rather than each add written out in both arms of the bounds check.
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private void AddCountAndValue<TOp, TValue>(Route route, int countSlot, int valueSlot, TValue value, bool mayBeSampled)
        where TOp : struct, ISlotOperation<TValue>
        where TValue : unmanaged, INumberBase<TValue>
    {
        if (route == Route.PerThread)
        {
            long* threadSlot = ThreadSlotInRegion0();
            SaturatingCell.AddSingleWriter(threadSlot + countSlot, 1);
            TOp.AddSingleWriter(threadSlot + valueSlot, value);
            return;
        }

        nint regionStride = (nint)1 << _regionStrideShift;
        if (route == Route.RestartableSequence)
        {
            // Two sequences, each of which commits once: the two may land in two processors'
            // regions if the thread moves between them, and each is still exact.
            // The value's sequence is AddRestartable written out, so that this arm is not one block
            // ending in a return. Compiled without a profile (the harness' loop, or with tiered
            // compilation off), the JIT synthesizes one, and rates a branch to a lone return block
            // at 0.2 against 0.8 for the other way: the sampled call then outweighed this arm and
            // took the loop's fall-through, the restartable record two taken jumps away. With a
            // branch in the arm, the arm gets the 0.52 of the IL's next block, as before the
            // dispatch was written once (perf/results/README.md, "the restartable record's layout").
            AddRestartable<SaturatingCell, long>(_slotInRegion0 + countSlot, regionStride, 1);
            long* valueInRegion0 = _slotInRegion0 + valueSlot;
            if (!TOp.TryAddRestartable(valueInRegion0, regionStride, value))
            {
                RestartableWritePath.AddToOverflowRegion<TOp, TValue>(valueInRegion0, regionStride, _chunk.RegionCount - 1, value);
            }

            return;
        }

        Route special = route;
        if (special >= Route.Compact)
        {
            if (special == Route.Compact)
            {
                // Two adds, each of which lands once (the count's is an atomic add); a refused
                // value promotes the series, and its add, and only its add, takes the new route.
                long* compact = _compactSlots;
                bool counted = SaturatingCell.AddCompact(compact + countSlot, 1) == 0;
                bool added = TOp.AddCompact(compact + valueSlot, value) == 0;
                if (!(counted & added))
                {
                    AddCountAndValueNoticed<TOp, TValue>(counted, added, countSlot, valueSlot, value);
                }

                return;
            }

            if (mayBeSampled)
            {
                AddCountAndValueSampled<TOp, TValue>(countSlot, valueSlot, value);
                return;
            }
        }

        AssertInterlocked(route);
        long* processorSlot = InterlockedWritePath.CurrentSlot(_slotInRegion0, regionStride);
        SaturatingCell.AddAtomic(processorSlot + countSlot, 1);
        TOp.AddAtomic(processorSlot + valueSlot, value);
    }

    // The restartable write path: a plain add to the calling processor's region inside a
    // restartable sequence; refused (the processor has no region, or the process no restartable
    // add of this kind), an atomic add to the overflow region, the chunk's last.
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private void AddRestartable<TOp, TValue>(long* slotInRegion0, nint regionStride, TValue value)
        where TOp : struct, ISlotOperation<TValue>
        where TValue : unmanaged, INumberBase<TValue>
    {
        if (!TOp.TryAddRestartable(slotInRegion0, regionStride, value))
        {
            RestartableWritePath.AddToOverflowRegion<TOp, TValue>(slotInRegion0, regionStride, _chunk.RegionCount - 1, value);
        }
    }

    // The add of a series that keeps exemplars: through its registry's write path, then the offer.
    [MethodImpl(MethodImplOptions.NoInlining)]
    private void AddSampled<TOp, TValue>(int slot, TValue value)
        where TOp : struct, ISlotOperation<TValue>
        where TValue : unmanaged, INumberBase<TValue>
    {
        Add<TOp, TValue>(StorageRoute, slot, value, mayBeSampled: false);
        OfferExemplar(slot, double.CreateTruncating(value));
    }

    // The two-slot add of a series that keeps exemplars; the exemplar offered is the count slot's (a histogram's bucket).
    [MethodImpl(MethodImplOptions.NoInlining)]
    private void AddCountAndValueSampled<TOp, TValue>(int countSlot, int valueSlot, TValue value)
        where TOp : struct, ISlotOperation<TValue>
        where TValue : unmanaged, INumberBase<TValue> =>
        AddCountAndValueSampled<TOp, TValue>(countSlot, valueSlot, value, double.CreateTruncating(value));

    // As above, the exemplar offered carrying exemplarValue (AddCountAndValue with an exemplar value);
    // inlined into each caller, so the call above stays one call.
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private void AddCountAndValueSampled<TOp, TValue>(int countSlot, int valueSlot, TValue value, double exemplarValue)
        where TOp : struct, ISlotOperation<TValue>
        where TValue : unmanaged, INumberBase<TValue>
    {
        AddCountAndValue<TOp, TValue>(StorageRoute, countSlot, valueSlot, value, mayBeSampled: false);
        OfferExemplar(countSlot, exemplarValue);
    }

    // The route an add dispatches on, read with acquire semantics, as a promotion writes it with
    // release (after the slots, the pointer and, per thread, the region count it routes to): so an
    // add that sees a partition route also sees what that route reads. On x64 a plain load already
    // has that order (the machine code is the same); on Arm64 a plain load of the route could be
    // satisfied after the loads of the fields it guards, and an add routed to the partitions could
    // read the compact series' null slot pointer or its crossing mark as a region count.
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private Route AcquireRoute() => (Route)Volatile.Read(ref Unsafe.As<Route, byte>(ref _route));

    // The storage route, read with acquire semantics: Compact, or the write path whose slots were
    // published before it was written; a sampled series' from its reservoir.
    private Route StorageRoute => _exemplars is { } exemplars
        ? (Route)Volatile.Read(ref exemplars.StorageRoute)
        : (Route)Volatile.Read(ref Unsafe.As<Route, byte>(ref _route));

    // A compact add that returned other than 0: landed (settles the slot, then the write-rate rule) or
    // refused (promotes, then adds). Out of line, about once per 1,024 adds.
    [MethodImpl(MethodImplOptions.NoInlining)]
    private void AddCompactNoticed<TOp, TValue>(int slot, TValue value)
        where TOp : struct, ISlotOperation<TValue>
        where TValue : unmanaged, INumberBase<TValue>
    {
        if (!TOp.CompactAddAlwaysLands)
        {
            AddContended<TOp, TValue>(slot, value);
            return;
        }

        TOp.SettleCompact(_compactSlots + slot);
        NoteCrossing();
    }

    // The two-slot add's out-of-line part: as AddCompactNoticed for each add that returned other than 0.
    [MethodImpl(MethodImplOptions.NoInlining)]
    private void AddCountAndValueNoticed<TOp, TValue>(bool counted, bool added, int countSlot, int valueSlot, TValue value)
        where TOp : struct, ISlotOperation<TValue>
        where TValue : unmanaged, INumberBase<TValue>
    {
        bool crossed = false;
        if (!counted)
        {
            SaturatingCell.SettleCompact(_compactSlots + countSlot);
            crossed = true;
        }

        if (!added && TOp.CompactAddAlwaysLands)
        {
            TOp.SettleCompact(_compactSlots + valueSlot);
            crossed = true;
        }

        if (crossed)
        {
            NoteCrossing();
        }

        if (!added && !TOp.CompactAddAlwaysLands)
        {
            AddContended<TOp, TValue>(valueSlot, value);
        }
    }

    // A compact add that was refused: promotes the series (if the storage and the budget let it),
    // then adds through the route it has now; still compact, to the compact slot until it lands.
    private void AddContended<TOp, TValue>(int slot, TValue value)
        where TOp : struct, ISlotOperation<TValue>
        where TValue : unmanaged, INumberBase<TValue>
    {
        Route route = Promote();
        if (route == Route.Compact)
        {
            while (TOp.AddCompact(_compactSlots + slot, value) != 0)
            {
                if (TOp.CompactAddAlwaysLands)
                {
                    TOp.SettleCompact(_compactSlots + slot);
                    return;
                }
            }

            return;
        }

        Add<TOp, TValue>(route, slot, value, mayBeSampled: false);
    }

    // The write-rate rule, at a crossing of a compact slot (CompactWrites.Crossing): promotes the
    // series where the crossing before this one was another thread's, within
    // SharedWritesWindowMilliseconds. One thread alone never promotes its series however fast it
    // writes (a copy per partition would not make it faster); two or more that write it often do.
    private void NoteCrossing()
    {
        int now = (int)Environment.TickCount64 & TimeMask;
        int writer = Environment.CurrentManagedThreadId & WriterMask;
        int last = Volatile.Read(ref _threadRegionCount);

        // A region count: promoted per thread since this add read its route.
        if (last > 0
            || Interlocked.CompareExchange(ref _threadRegionCount, CrossingMark | (now << WriterBits) | writer, last) != last)
        {
            return;
        }

        if (last != 0 && (last & WriterMask) != writer && ((now - (last >> WriterBits)) & TimeMask) <= SharedWritesWindowMilliseconds)
        {
            Promote();
        }
    }

    /// <summary>
    /// Promotes a compact series to per-partition slots, where its registry keeps series adaptively
    /// and the promotion budget has room (<see cref="PartitionArena.TryAllocatePromotion"/>): the
    /// zeroed slots are allocated and the fields that lead an add to them written, then the route,
    /// last, with release semantics, so that an add that reads the new route finds the slots. Under
    /// the arena's read lock, so that a read sees the series either compact or with both ranges.
    /// The compact slots are never written again by a writer that read the new route, and are
    /// read for good. Thread-safe; idempotent.
    /// </summary>
    /// <returns>The series' storage route now: <see cref="Route.Compact"/> where it stays compact.</returns>
    private Route Promote()
    {
        PartitionArena compact = Volatile.Read(ref _chunk).Arena;
        lock (compact.ReadLock)
        {
            Route storageRoute = StorageRoute;
            if (storageRoute != Route.Compact)
            {
                return storageRoute;
            }

            // A series marked for removal keeps the ranges its retired entry names.
            if (IsMarked)
            {
                return Route.Compact;
            }

            PartitionArena arena = compact.PerPartition;
            if (!arena.TryAllocatePromotion(_slotCount, out SlotRange slots))
            {
                return Route.Compact;
            }

            UsePartitionSlots(slots);
            Route route = RouteOf(arena.WritePath);
            if (_exemplars is { } exemplars)
            {
                Volatile.Write(ref exemplars.StorageRoute, (byte)route);
            }
            else
            {
                Volatile.Write(ref Unsafe.As<Route, byte>(ref _route), (byte)route);
            }

            return route;
        }
    }

    /// <summary>Promotes the series as a contended add would (tests, the harness); <see langword="false"/> where it stays compact.</summary>
    internal bool TryPromote() => Promote() != Route.Compact;

    // Points the series at its per-partition slots (before any route to them is written).
    [MemberNotNull(nameof(_chunk))]
    private void UsePartitionSlots(SlotRange slots)
    {
        Volatile.Write(ref _chunk, slots.Chunk);
        _firstSlot = slots.FirstSlot;
        _slotInRegion0 = slots.SlotInRegion0;
        _regionStrideShift = checked((byte)slots.Chunk.RegionStrideShift);
        // Per thread, the count replaces any last crossing (NoteCrossing no longer writes it);
        // otherwise a crossing left there is read by no one.
        if (slots.Chunk.Arena.WritePath == WritePath.PerThread)
        {
            Volatile.Write(ref _threadRegionCount, slots.Chunk.RegionCount);
        }
    }

    // After each add of a series that keeps exemplars, with the slot added to (a counter's 0, a
    // histogram's bucket) and the value: kept if the filter samples it.
    private void OfferExemplar(int slot, double value) => _exemplars!.Offer(slot, value);

    // Where the dispatch has tested every other route: the Sampled route must not reach the
    // Interlocked path, which on a per-thread arena would race the owners' plain stores.
    [Conditional("DEBUG")]
    private void AssertInterlocked(Route route) =>
        Debug.Assert(route == Route.InterlockedProcessorId && WritePath == WritePath.InterlockedProcessorId, $"the {route} route of a {WritePath} series reached the Interlocked path");

    // A registry's write path as a route: the same value (see Route).
    private static Route RouteOf(WritePath writePath)
    {
        Debug.Assert(Enum.IsDefined(writePath), "one of the three write paths");
        return (Route)writePath;
    }

    /// <summary>Sums the wrapping slot <paramref name="slot"/> over every partition. Thread-safe; serialized with other reads of the registry.</summary>
    private protected long ReadSlotWrapping(int slot)
    {
        lock (ReadLock)
        {
            long sum = _compactSlots == null ? 0 : Volatile.Read(ref _compactSlots[slot]);
            return IsCompact ? sum : unchecked(sum + _chunk.FirstGeneration.SumSlotWrapping(_firstSlot + slot));
        }
    }

    /// <summary>Sums the <see cref="double"/> slot <paramref name="slot"/> over every partition (each partition's value within ±<see cref="double.MaxValue"/> first, where <paramref name="saturateEach"/>). Thread-safe; serialized with other reads of the registry.</summary>
    private protected double ReadSlotDouble(int slot, bool saturateEach = false)
    {
        lock (ReadLock)
        {
            return SumSlotDouble(slot, saturateEach);
        }
    }

    /// <summary>Sums the saturating slots <paramref name="firstSlot"/> to <paramref name="firstSlot"/> + <paramref name="counts"/>.Length - 1 into <paramref name="counts"/> and the <see cref="double"/> slot <paramref name="doubleSlot"/> into the result, under one hold of the read lock.</summary>
    private protected double ReadSlotsAndDouble(int firstSlot, Span<long> counts, int doubleSlot)
    {
        lock (ReadLock)
        {
            for (int i = 0; i < counts.Length; i++)
            {
                counts[i] = SumSlot(firstSlot + i);
            }

            return SumSlotDouble(doubleSlot);
        }
    }

    /// <summary>Sums slot <paramref name="slot"/> over every partition, saturating. Thread-safe; serialized with other reads of the registry.</summary>
    private protected long ReadSlot(int slot)
    {
        lock (ReadLock)
        {
            return SumSlot(slot);
        }
    }

    /// <summary>Sums slots 0 and 1 over every partition, each exact as of some instant during the read, not necessarily the same one.</summary>
    private protected (long First, long Second) ReadPair()
    {
        lock (ReadLock)
        {
            return (SumSlot(0), SumSlot(1));
        }
    }

    // The lock every read of the registry's slots takes: its arenas share one.
    private Lock ReadLock => Volatile.Read(ref _chunk).Arena.ReadLock;

    /// <summary>
    /// Reads every series in <paramref name="series"/> of <paramref name="arena"/>: its
    /// <paramref name="slotsPerSeries"/> slots summed by <paramref name="kind"/> (saturating by
    /// default; <see cref="SlotSum.Double"/>: the totals are doubles' bits) into
    /// <paramref name="totals"/>, series i's slot k at i × <paramref name="slotsPerSeries"/> + k,
    /// chunk by chunk, region by region, vectorized; and where <paramref name="doubleSlot"/> is not
    /// negative, that <see cref="double"/> slot of each series summed as doubles into
    /// <paramref name="doubles"/>[i] (a histogram's sum). Under one hold of the read lock, so that
    /// reads are serialized. <paramref name="collection"/>: a collection of the instrument (not a
    /// read of one series, nor a read that is no collection, <see cref="Instrument.ReadInto(Snapshots.InstrumentSnapshot, bool)"/>),
    /// whose reading of a series marked for removal is kept as its final one.
    /// <paramref name="ranges"/> is the reader's room for where each series'
    /// slots are now (per thread, a range's chunk may be any generation, and the arena sums them all).
    /// </summary>
    private protected static void ReadAll<TSeries>(PartitionArena arena, ReadOnlySpan<TSeries> series, Span<SlotRange> ranges, int slotsPerSeries, int doubleSlot, Span<long> totals, Span<double> doubles, SlotSum kind = SlotSum.Saturating, bool collection = true)
        where TSeries : PartitionedSeries
    {
        Debug.Assert(ranges.Length == series.Length, "a range per series");

        // The per-partition arena, whose chunks the promoted ranges are in, even where the caller
        // found the arena through a compact series' chunk.
        arena = arena.PerPartition;
        lock (arena.ReadLock)
        {
            // Whether any series is marked for removal, noted in the pass that reads every series
            // object anyway, so that the capture below walks them again only where one is. A
            // series marked before this collection began is marked here (BeginRead's fence); one
            // marked since is not unlinked after it, so a later collection captures it.
            bool anyMarked;
            if (!arena.StartsCompact)
            {
                // Every series per partition from creation: one pass over the arena.
                anyMarked = false;
                for (int i = 0; i < ranges.Length; i++)
                {
                    PartitionedSeries one = series[i];
                    ranges[i] = new SlotRange(Volatile.Read(ref one._chunk), one._firstSlot);
                    anyMarked |= one.IsMarked;
                }

                arena.SumRanges(ranges, slotsPerSeries, totals, kind);
            }
            else
            {
                anyMarked = ReadCompactAndPromoted(arena, series, ranges, slotsPerSeries, totals, kind);
            }

            // A strided walk of one slot per series: cheaper than summing every slot again as doubles.
            if (doubleSlot >= 0)
            {
                for (int i = 0; i < series.Length; i++)
                {
                    doubles[i] = series[i].SumSlotDouble(doubleSlot);
                }
            }

            // A series marked for removal keeps a collection's reading as its final one, if this
            // read is its last (the table unlinks it after a read that began after the mark).
            for (int i = 0; collection && anyMarked && i < series.Length; i++)
            {
                if (series[i].IsMarked && RetiredSeries.Of(series[i]) is { } retired)
                {
                    retired.CaptureFinal(totals.Slice(i * slotsPerSeries, slotsPerSeries));
                }
            }
        }
    }

    // ReadAll where series start compact: each series' compact slots copied, then the promoted
    // ones' per-partition slots summed in one pass over the arena, as ReadAll sums every series
    // otherwise, and added to them. The reads walk what was written: compact ranges for every
    // series, per-partition ranges only for the promoted. The caller holds the read lock. Returns
    // whether any series is marked for removal. Compiled fully optimized at its first call: a
    // scrape calls it once an instrument, so tiered compilation would run its loop over every
    // series unoptimized, then instrumented, for a service's first dozens of scrapes
    // (perf/results/README.md, "the one-scraper command's warm-up").
    [MethodImpl(MethodImplOptions.AggressiveOptimization)]
    private static bool ReadCompactAndPromoted<TSeries>(PartitionArena arena, ReadOnlySpan<TSeries> series, Span<SlotRange> ranges, int slotsPerSeries, Span<long> totals, SlotSum kind)
        where TSeries : PartitionedSeries
    {
        int promoted = 0;
        bool anyMarked = false;
        for (int i = 0; i < series.Length; i++)
        {
            PartitionedSeries one = series[i];

            // One slot (a counter's) is one load: a copy of one element is a call to Memmove.
            if (slotsPerSeries == 1)
            {
                totals[i] = *one._compactSlots;
            }
            else
            {
                new ReadOnlySpan<long>(one._compactSlots, slotsPerSeries).CopyTo(totals.Slice(i * slotsPerSeries, slotsPerSeries));
            }

            if (!one.IsCompact)
            {
                // Ranges' room is reused for the promoted ones, the i-th promoted at i.
                ranges[promoted++] = new SlotRange(Volatile.Read(ref one._chunk), one._firstSlot);
            }

            anyMarked |= one.IsMarked;
        }

        if (kind == SlotSum.Saturating)
        {
            // A negative compact total is past long.MaxValue (SaturatingCell.AddCompact).
            SaturatingSum.Saturate(totals[..(series.Length * slotsPerSeries)]);
        }

        if (promoted == 0)
        {
            return anyMarked;
        }

        Span<long> sums = arena.PromotedReadScratch(promoted * slotsPerSeries);
        arena.SumRanges(ranges[..promoted], slotsPerSeries, sums, kind);
        // Promotion takes the read lock the caller holds: the series promoted are the same as above.
        int next = 0;
        for (int i = 0; i < series.Length && next < promoted; i++)
        {
            if (!series[i].IsCompact)
            {
                ArenaChunk.AddInto(totals.Slice(i * slotsPerSeries, slotsPerSeries), sums.Slice(next * slotsPerSeries, slotsPerSeries), kind);
                next++;
            }
        }

        Debug.Assert(next == promoted, "every promoted series' sums added to its total");
        return anyMarked;
    }

    /// <summary>
    /// Reads the series of a counter or an up-down counter, <see cref="long"/> or
    /// <see cref="double"/>, written once for the four: every series of <paramref name="table"/>,
    /// as one collection of it, each one slot of <paramref name="arena"/> summed by
    /// <paramref name="kind"/>, into <paramref name="snapshot"/>: each series' newest exemplar first
    /// (none where the series keep none), then the totals in one pass over the arena, as longs or,
    /// where <paramref name="kind"/> is <see cref="SlotSum.Double"/>, as doubles, each saturated as
    /// <see cref="SaturateTotal"/> does.
    /// </summary>
    /// <param name="table">The instrument's series.</param>
    /// <param name="arena">The arena the series' slots are in.</param>
    /// <param name="snapshot">The reader's columns.</param>
    /// <param name="kind">How the slot is summed.</param>
    /// <param name="idleCollections">The instrument's idle expiry (<see cref="Instrument.IdleCollections"/>).</param>
    /// <param name="collection">Whether the read is a collection; else the totals only, no exemplars (<see cref="Instrument.ReadInto(InstrumentSnapshot, bool)"/>).</param>
    internal static void ReadTotalsInto<TSeries>(SeriesTable<TSeries> table, PartitionArena arena, InstrumentSnapshot snapshot, SlotSum kind, int idleCollections, bool collection)
        where TSeries : PartitionedSeries
    {
        ArraySegment<TSeries> series = table.BeginRead(out long read, collection);
        bool doubles = kind == SlotSum.Double;
        snapshot.BeginSeries(series, longStride: doubles ? 0 : 1, doubles);
        if (collection)
        {
            snapshot.ReadExemplars<TSeries>(series, perSeries: 1);
        }

        Span<long> totals = doubles ? MemoryMarshal.Cast<double, long>(snapshot.Doubles()) : snapshot.Longs();
        ReadAll<TSeries>(arena, series, snapshot.Ranges(series.Count), slotsPerSeries: 1, doubleSlot: -1, totals, default, kind, collection);
        if (doubles)
        {
            Span<double> values = snapshot.Doubles();
            for (int i = 0; i < values.Length; i++)
            {
                // NaN only where partitions passed the range in opposite directions (an up-down
                // counter's +∞ and -∞; every increment is finite): read again, each partition
                // within the range first, rarely and out of the vectorized sum.
                values[i] = SaturateTotal(double.IsNaN(values[i]) ? series[i].ReadSlotDouble(0, saturateEach: true) : values[i]);
            }
        }

        table.EndRead(read, snapshot, idleCollections);
    }

    // A double total's increments are finite, so an infinite slot or sum is finite adds past
    // double's range: read as the largest finite value of its sign, never ±∞, which would stay for
    // good (and which the instruments refuse as an increment for that very reason). A counter's
    // increments are not negative, so its total is never -∞: it saturates at double.MaxValue.
    private protected static double SaturateTotal(double sum) => double.IsInfinity(sum) ? Math.CopySign(double.MaxValue, sum) : sum;

    // Per thread: the calling thread's slot 0 of this series, taking an index or widening the chunk if need be (as Add does, from the same fields in the same order).
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private long* ThreadSlotInRegion0()
    {
        int regionCount = Volatile.Read(ref _threadRegionCount);
        int index = ThreadLease.CurrentIndex;
        return (uint)index < (uint)regionCount ? PerThreadWritePath.Slot(_slotInRegion0, _regionStrideShift, index) : GetNewThreadSlot();
    }

    // One slot's total, compact and per partition; the caller holds the read lock.
    private long SumSlot(int slot)
    {
        // A negative compact total is past long.MaxValue (SaturatingCell.AddCompact): Add reads it so.
        long sum = _compactSlots == null ? 0 : SaturatingSum.Add(0, Volatile.Read(ref _compactSlots[slot]));
        return IsCompact ? sum : SaturatingSum.Add(sum, _chunk.FirstGeneration.SumSlot(_firstSlot + slot));
    }

    // One double slot's total, compact and per partition (each within ±double.MaxValue first, where
    // saturateEach: see ArenaChunk.SumSlotDouble); the caller holds the read lock.
    private double SumSlotDouble(int slot, bool saturateEach = false)
    {
        double sum = _compactSlots == null ? 0 : DoubleCell.Read(_compactSlots + slot);
        if (saturateEach)
        {
            sum = Math.Clamp(sum, -double.MaxValue, double.MaxValue);
        }

        return IsCompact ? sum : sum + _chunk.FirstGeneration.SumSlotDouble(_firstSlot + slot, saturateEach);
    }

    // Per thread, the add's slow path (PerThreadWritePath.NewSlot), out of line with the series as
    // its one argument: every add site calls it, and three field addresses would cost each more
    // code than the call itself.
    [MethodImpl(MethodImplOptions.NoInlining)]
    private long* GetNewThreadSlot() => PerThreadWritePath.NewSlot(ref _chunk, ref _slotInRegion0, ref _threadRegionCount, _firstSlot);
}
