using System.Diagnostics;
using System.Runtime.CompilerServices;
using ScalableMetrics.Platform;

namespace ScalableMetrics.Exemplars;

/// <summary>
/// A series' exemplars: per partition, one <see cref="ExemplarSlot"/> per exemplar index (a
/// counter's total: 1; a histogram: one per bucket), each the last sampled measurement written
/// there; read as the newest over partitions.
/// </summary>
/// <remarks>
/// <para>A series holds one only with <see cref="ExemplarFilter.TraceBased"/>. Nothing is allocated
/// until a sampled measurement arrives: the partition table on the first, a partition's slots on
/// the first in that partition (each by a compare-and-swap of the reference; a loser's array is
/// dropped), so memory goes only where traced requests run.</para>
/// <para>The partition is the calling thread's cached processor id folded below
/// <see cref="ProcessorId.PartitionCount"/> (<see cref="ProcessorId.CurrentPartition"/>), on every
/// write path, per thread too: the exemplar need not sit in the partition the add went to, and the
/// processor keeps the table at most processor-count long where thread indexes have no bound.
/// Where no processor id can be had, every write goes to partition 0.</para>
/// <para>A partition's slots are an array with one unused slot before and after them, so that two
/// partitions' slots are not in one cache line.</para>
/// </remarks>
internal sealed class ExemplarReservoir
{
    // The unused slot before a partition's first (after the array's header) and after its last.
    private const int GuardSlots = 1;

    private readonly int _slotCount;
    private readonly bool _alwaysOn;
    private ExemplarSlot[]?[]? _partitions;

    /// <summary>Creates an empty reservoir of <paramref name="slotCount"/> exemplars per partition.</summary>
    /// <param name="slotCount">Exemplars per partition.</param>
    /// <param name="alwaysOn">Whether every measurement is kept (<see cref="ExemplarFilter.AlwaysOn"/>), not only those of a recorded activity.</param>
    public ExemplarReservoir(int slotCount, bool alwaysOn = false)
    {
        _slotCount = slotCount;
        _alwaysOn = alwaysOn;
    }

    /// <summary>Exemplars per partition: one per counter, one per histogram bucket.</summary>
    public int SlotCount => _slotCount;

    /// <summary>The partitions whose slots are allocated (a sampled measurement was written there).</summary>
    internal int AllocatedPartitionCount => Volatile.Read(ref _partitions)?.Count(static p => p is not null) ?? 0;

    /// <summary>A reservoir of <paramref name="slotCount"/> exemplars for a series, or null where <paramref name="filter"/> keeps none.</summary>
    public static ExemplarReservoir? Create(ExemplarFilter filter, int slotCount) => filter switch
    {
        ExemplarFilter.TraceBased => new ExemplarReservoir(slotCount),
        ExemplarFilter.AlwaysOn => new ExemplarReservoir(slotCount, alwaysOn: true),
        _ => null,
    };

    /// <summary>Keeps <paramref name="value"/> in slot <paramref name="slot"/> of the calling partition if the filter samples it: <see cref="Activity.Current"/> is recorded.</summary>
    /// <remarks>Called after the add, from the out-of-line add path of a series that keeps exemplars (see <c>PartitionedSeries</c>).</remarks>
    [MethodImpl(MethodImplOptions.NoInlining)]
    public void Offer(int slot, double value)
    {
        Activity? activity = Activity.Current;
        if (activity is null || !activity.Recorded)
        {
            if (!_alwaysOn)
            {
                return;
            }

            // AlwaysOn: kept all the same, with the activity's ids where there is one, none where not.
            Write(ProcessorId.CurrentPartition(), slot, value, DateTime.UtcNow.Ticks, activity?.TraceId ?? default, activity?.SpanId ?? default);
            return;
        }

        Write(ProcessorId.CurrentPartition(), slot, value, DateTime.UtcNow.Ticks, activity.TraceId, activity.SpanId);
    }

    /// <summary>Writes an exemplar into slot <paramref name="slot"/> of partition <paramref name="partition"/>, allocating the partition's slots if need be; skipped where another writer holds the slot.</summary>
    /// <returns>Whether it was written.</returns>
    internal bool Write(int partition, int slot, double value, long timestampTicks, ActivityTraceId traceId, ActivitySpanId spanId) =>
        ExemplarSlot.TryWrite(ref SlotsOf(partition)[GuardSlots + slot], value, timestampTicks, traceId, spanId);

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

    /// <summary>The newest exemplar of every slot (<see cref="ReadNewest"/>), or null where no sampled measurement was ever kept.</summary>
    public Exemplar?[]? ReadNewestOfEach()
    {
        if (Volatile.Read(ref _partitions) is null)
        {
            return null;
        }

        var newest = new Exemplar?[_slotCount];
        ReadNewestOfEach(newest);
        return newest;
    }

    /// <summary>
    /// As <see cref="ReadNewestOfEach()"/>, into <paramref name="newest"/> (one per slot, a reader's
    /// kept array) rather than a new array: false, and nothing written, where none was ever kept.
    /// </summary>
    public bool ReadNewestOfEach(Span<Exemplar?> newest)
    {
        if (Volatile.Read(ref _partitions) is null)
        {
            return false;
        }

        for (int slot = 0; slot < _slotCount; slot++)
        {
            newest[slot] = ReadNewest(slot);
        }

        return true;
    }

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
