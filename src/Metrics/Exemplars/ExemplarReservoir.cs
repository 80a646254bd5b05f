using System.Diagnostics;
using System.Runtime.CompilerServices;
using ScalableMetrics.Platform;

namespace ScalableMetrics.Exemplars;

/// <summary>
/// A series' exemplars: per partition, <see cref="SlotCount"/> <see cref="ExemplarSlot"/>s, each
/// the last sampled measurement written there. Which slot a measurement goes to and how a read
/// merges the partitions is the variant's: one slot per bucket, the newest over partitions
/// (<see cref="BucketExemplarReservoir"/>, counters and classic histograms), or a fixed number
/// filled by reservoir sampling, the newest few over partitions (<see cref="SimpleFixedSizeExemplarReservoir"/>,
/// exponential histograms).
/// </summary>
/// <remarks>
/// <para>A series holds one only with <see cref="ExemplarFilter.TraceBased"/> or
/// <see cref="ExemplarFilter.AlwaysOn"/>. Nothing is allocated until a sampled measurement arrives:
/// the partition table on the first, a partition's slots on the first in that partition (each by a
/// compare-and-swap of the reference; a loser's array is dropped), so memory goes only where
/// sampled measurements happen.</para>
/// <para>The partition is the calling thread's cached processor id folded below
/// <see cref="ProcessorId.PartitionCount"/> (<see cref="ProcessorId.CurrentPartition"/>), on every
/// write path, per thread too: the exemplar need not sit in the partition the add went to, and the
/// processor keeps the table at most processor-count long where thread indexes have no bound.
/// Where no processor id can be had, every write goes to partition 0.</para>
/// <para>A partition's slots are an array with one unused slot before and after them, so that two
/// partitions' slots are not in one cache line.</para>
/// </remarks>
internal abstract class ExemplarReservoir
{
    // The unused slot before a partition's first (after the array's header) and after its last.
    private const int GuardSlots = 1;

    private readonly int _slotCount;
    private readonly bool _alwaysOn;

    // The storage route of the series this reservoir samples for (PartitionedSeries' route
    // enumeration, as a byte): kept here, not in the series, so that the series of an instrument
    // without exemplars, most of them, do not pay for it.
    private byte _storageRoute;
    private ExemplarSlot[]?[]? _partitions;

    /// <summary>Creates an empty reservoir of <paramref name="slotCount"/> exemplars per partition.</summary>
    /// <param name="slotCount">Exemplars per partition.</param>
    /// <param name="alwaysOn">Whether every measurement is offered (<see cref="ExemplarFilter.AlwaysOn"/>), not only those of a recorded activity.</param>
    private protected ExemplarReservoir(int slotCount, bool alwaysOn)
    {
        _slotCount = slotCount;
        _alwaysOn = alwaysOn;
    }

    /// <summary>How the adds of the series this reservoir samples for reach their slots (its compact slots, or its registry's write path once promoted): written and read by that series only, with release and acquire semantics.</summary>
    internal ref byte StorageRoute => ref _storageRoute;

    /// <summary>Exemplars per partition, and per read: one per counter, one per classic histogram bucket, the sample size of an exponential histogram's.</summary>
    public int SlotCount => _slotCount;

    /// <summary>The partitions whose slots are allocated (a sampled measurement was written there).</summary>
    internal int AllocatedPartitionCount => Volatile.Read(ref _partitions)?.Count(static p => p is not null) ?? 0;

    /// <summary>A reservoir of one exemplar per slot (a counter's total, a histogram's buckets) for a series, or null where <paramref name="filter"/> keeps none.</summary>
    public static ExemplarReservoir? Create(ExemplarFilter filter, int slotCount) => filter switch
    {
        ExemplarFilter.TraceBased => new BucketExemplarReservoir(slotCount),
        ExemplarFilter.AlwaysOn => new BucketExemplarReservoir(slotCount, alwaysOn: true),
        _ => null,
    };

    /// <summary>
    /// A reservoir of <paramref name="size"/> exemplars sampled from the measurements added to slots
    /// below <paramref name="offeredSlots"/> (<see cref="SimpleFixedSizeExemplarReservoir"/>), or null
    /// where <paramref name="filter"/> keeps none.
    /// </summary>
    public static ExemplarReservoir? CreateFixedSize(ExemplarFilter filter, int size, int offeredSlots) => filter switch
    {
        ExemplarFilter.TraceBased => new SimpleFixedSizeExemplarReservoir(size, offeredSlots, alwaysOn: false),
        ExemplarFilter.AlwaysOn => new SimpleFixedSizeExemplarReservoir(size, offeredSlots, alwaysOn: true),
        _ => null,
    };

    /// <summary>Offers <paramref name="value"/>, just added to slot <paramref name="slot"/> of the series, to the calling partition's exemplars: kept if the filter samples it and the variant keeps it.</summary>
    /// <remarks>Called after the add, from the out-of-line add path of a series that keeps exemplars (see <c>PartitionedSeries</c>).</remarks>
    public abstract void Offer(int slot, double value);

    /// <summary>
    /// Reads the series' exemplars into <paramref name="exemplars"/> (<see cref="SlotCount"/> of
    /// them, a reader's kept array): false, and nothing written, where none was ever kept.
    /// </summary>
    public abstract bool ReadInto(Span<Exemplar?> exemplars);

    /// <summary>As <see cref="ReadInto"/>, into a new array; null where none was ever kept.</summary>
    public Exemplar?[]? Read()
    {
        if (Volatile.Read(ref _partitions) is null)
        {
            return null;
        }

        var exemplars = new Exemplar?[_slotCount];
        ReadInto(exemplars);
        return exemplars;
    }

    /// <summary>The newest exemplar (latest timestamp) in slot <paramref name="slot"/> over every partition, or null where none was kept.</summary>
    public Exemplar? ReadNewest(int slot)
    {
        ExemplarSlot[]?[]? partitions = Volatile.Read(ref _partitions);
        if (partitions is null)
        {
            return null;
        }

        Exemplar? newest = null;
        long newestTicks = long.MinValue;
        foreach (ExemplarSlot[]? slots in partitions)
        {
            if (slots is not null && ExemplarSlot.TryRead(ref slots[GuardSlots + slot], out long ticks, out Exemplar exemplar) && ticks > newestTicks)
            {
                newest = exemplar;
                newestTicks = ticks;
            }
        }

        return newest;
    }

    /// <summary>Writes an exemplar into slot <paramref name="slot"/> of partition <paramref name="partition"/>, allocating the partition's slots if need be; skipped where another writer holds the slot.</summary>
    /// <returns>Whether it was written.</returns>
    internal bool Write(int partition, int slot, double value, long timestampTicks, ActivityTraceId traceId, ActivitySpanId spanId) =>
        ExemplarSlot.TryWrite(ref SlotsOf(partition)[GuardSlots + slot], value, timestampTicks, traceId, spanId);

    /// <summary>
    /// Whether the filter samples a measurement taken now: <see cref="Activity.Current"/> is
    /// recorded, or, with <see cref="ExemplarFilter.AlwaysOn"/>, always; <paramref name="traceId"/>
    /// and <paramref name="spanId"/> are then the current activity's, or default where there is none.
    /// </summary>
    private protected bool Samples(out ActivityTraceId traceId, out ActivitySpanId spanId)
    {
        Activity? activity = Activity.Current;
        if (activity is null || !activity.Recorded)
        {
            // AlwaysOn: kept all the same, with the activity's ids where there is one, none where not.
            traceId = _alwaysOn ? activity?.TraceId ?? default : default;
            spanId = _alwaysOn ? activity?.SpanId ?? default : default;
            return _alwaysOn;
        }

        traceId = activity.TraceId;
        spanId = activity.SpanId;
        return true;
    }

    /// <summary>The partitions' slots as allocated so far (an entry null where none was written there), or null where none was.</summary>
    private protected ExemplarSlot[]?[]? Partitions => Volatile.Read(ref _partitions);

    /// <summary>Copies slot <paramref name="slot"/> of a partition's <paramref name="slots"/> (from <see cref="Partitions"/>), if one was written and a consistent copy could be taken.</summary>
    private protected static bool TryRead(ExemplarSlot[] slots, int slot, out long timestampTicks, out Exemplar exemplar) =>
        ExemplarSlot.TryRead(ref slots[GuardSlots + slot], out timestampTicks, out exemplar);

    private ExemplarSlot[] SlotsOf(int partition)
    {
        ExemplarSlot[]?[] partitions = Volatile.Read(ref _partitions) ?? CreatePartitions();
        return Volatile.Read(ref partitions[partition]) ?? CreateSlots(partitions, partition);
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private ExemplarSlot[]?[] CreatePartitions()
    {
        var created = new ExemplarSlot[]?[ProcessorId.PartitionCount];
        return Interlocked.CompareExchange(ref _partitions, created, null) ?? created;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private ExemplarSlot[] CreateSlots(ExemplarSlot[]?[] partitions, int partition)
    {
        var created = new ExemplarSlot[GuardSlots + _slotCount + GuardSlots];
        return Interlocked.CompareExchange(ref partitions[partition], created, null) ?? created;
    }
}
