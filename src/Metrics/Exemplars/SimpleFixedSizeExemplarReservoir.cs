using System.Diagnostics;
using System.Runtime.CompilerServices;
using ScalableMetrics.Platform;

namespace ScalableMetrics.Exemplars;

/// <summary>
/// A fixed number of exemplars per partition, chosen from the partition's sampled measurements by
/// reservoir sampling (Vitter's algorithm R): the first <see cref="ExemplarReservoir.SlotCount"/>
/// since the last read fill the slots, and the n-th after them replaces a slot with probability
/// size / n. A read returns the newest <see cref="ExemplarReservoir.SlotCount"/> over every
/// partition, oldest first, and starts each partition's count over. OpenTelemetry's
/// <c>SimpleFixedSizeExemplarReservoir</c> (specification, SDK, "SimpleFixedSizeExemplarReservoir"),
/// which it gives Base2 exponential histograms with a size of min(20, max buckets).
/// </summary>
/// <remarks>
/// <para>Per partition rather than one per series, so that sampled records on two processors
/// share no written line: each partition counts its own measurements, in a counter of its own
/// 128 bytes apart from the next. The count is incremented with a plain add: two writers in one
/// partition (the interlocked or the per-thread write path) may lose an increment, which only
/// changes a probability; the measurement itself is recorded by the series' own write path, exactly.</para>
/// <para>The count starts over at each read, as OpenTelemetry's does at each collection, so that
/// the measurements since the last read have a fair chance however many came before; the slots
/// keep their exemplars until replaced. Reads are serialized by the registry's read lock.</para>
/// <para>Only adds to the slots below <c>offeredSlots</c> are measurements (an exponential
/// histogram's zero and positive buckets); the adds of the classic buckets counted beside them
/// are offered too (the series' one sampled add path offers every add) and are ignored.</para>
/// </remarks>
internal sealed class SimpleFixedSizeExemplarReservoir : ExemplarReservoir
{
    /// <summary>OpenTelemetry's bound on an exponential histogram's reservoir: the size is the lower of this and its max buckets.</summary>
    public const int DefaultMaxSize = 20;

    // Longs between two partitions' counts: 128 bytes, a cache line pair (the adjacent-line
    // prefetcher's unit), as the arena's regions are apart.
    private const int CountStride = 16;

    private readonly int _offeredSlots;

    // Each partition's measurements since the last read, at (partition + 1) * CountStride: none
    // before the first, so that the array's header line is not written either.
    private long[]? _offered;

    /// <summary>Creates an empty reservoir of <paramref name="size"/> exemplars per partition.</summary>
    /// <param name="size">Exemplars per partition and per read.</param>
    /// <param name="offeredSlots">The offers that are measurements: those of an add to a slot below this.</param>
    /// <param name="alwaysOn">Whether every measurement is offered (<see cref="ExemplarFilter.AlwaysOn"/>), not only those of a recorded activity.</param>
    public SimpleFixedSizeExemplarReservoir(int size, int offeredSlots, bool alwaysOn)
        : base(size, alwaysOn)
    {
        Debug.Assert(size > 0, "at least one exemplar");
        _offeredSlots = offeredSlots;
    }

    /// <summary>The reservoir size OpenTelemetry gives an exponential histogram of <paramref name="maxBuckets"/>: min(20, max buckets).</summary>
    public static int SizeFor(int maxBuckets) => Math.Min(DefaultMaxSize, maxBuckets);

    /// <summary>Counts <paramref name="value"/> among the calling partition's measurements if the filter samples it, and keeps it in a slot with probability size / count.</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    public override void Offer(int slot, double value)
    {
        if ((uint)slot >= (uint)_offeredSlots || !Samples(out ActivityTraceId traceId, out ActivitySpanId spanId))
        {
            return;
        }

        int partition = ProcessorId.CurrentPartition();
        ref long offered = ref OfferedOf(partition);
        long seen = offered;
        offered = seen + 1;

        // Algorithm R: the n-th measurement (seen = n - 1) takes a slot chosen uniformly from n
        // places, kept where the place is a slot.
        long place = seen < SlotCount ? seen : Random.Shared.NextInt64(seen + 1);
        if (place < SlotCount)
        {
            Write(partition, (int)place, value, DateTime.UtcNow.Ticks, traceId, spanId);
        }
    }

    /// <summary>The newest <see cref="ExemplarReservoir.SlotCount"/> exemplars over every partition, oldest first, then nulls; starts each partition's count over.</summary>
    public override bool ReadInto(Span<Exemplar?> exemplars)
    {
        ExemplarSlot[]?[]? partitions = Partitions;
        if (partitions is null)
        {
            return false;
        }

        // The newest so far, newest first, by insertion: a few dozen slots per partition at most.
        int size = SlotCount;
        Span<long> ticksOf = size <= 64 ? stackalloc long[size] : new long[size];
        int kept = 0;
        for (int p = 0; p < partitions.Length; p++)
        {
            if (partitions[p] is not { } slots)
            {
                continue;
            }

            for (int slot = 0; slot < size; slot++)
            {
                if (!TryRead(slots, slot, out long ticks, out Exemplar exemplar) || (kept == size && ticks <= ticksOf[kept - 1]))
                {
                    continue;
                }

                int at = kept == size ? kept - 1 : kept++;
                while (at > 0 && ticksOf[at - 1] < ticks)
                {
                    ticksOf[at] = ticksOf[at - 1];
                    exemplars[at] = exemplars[at - 1];
                    at--;
                }

                ticksOf[at] = ticks;
                exemplars[at] = exemplar;
            }

            Volatile.Write(ref OfferedOf(p), 0);
        }

        exemplars[..kept].Reverse();
        exemplars[kept..size].Clear();
        return true;
    }

    /// <summary>The measurements partition <paramref name="partition"/> has counted since the last read (tests).</summary>
    internal long OfferedSinceRead(int partition) => Volatile.Read(ref _offered) is { } offered ? offered[(partition + 1) * CountStride] : 0;

    private ref long OfferedOf(int partition)
    {
        long[] offered = Volatile.Read(ref _offered) ?? CreateOffered();
        return ref offered[(partition + 1) * CountStride];
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private long[] CreateOffered()
    {
        var created = new long[(ProcessorId.PartitionCount + 1) * CountStride];
        return Interlocked.CompareExchange(ref _offered, created, null) ?? created;
    }
}
