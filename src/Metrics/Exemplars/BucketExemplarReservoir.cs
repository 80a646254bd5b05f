using System.Diagnostics;
using System.Runtime.CompilerServices;
using ScalableMetrics.Platform;

namespace ScalableMetrics.Exemplars;

/// <summary>
/// One exemplar per slot a measurement is added to (a counter's total: 1; a classic histogram:
/// one per bucket), each the last sampled measurement of that slot in its partition; read as the
/// newest over partitions, slot by slot. OpenTelemetry's <c>AlignedHistogramBucketExemplarReservoir</c>
/// (specification, SDK, "Exemplar defaults"), with the last measurement kept rather than a random one.
/// </summary>
/// <remarks>Thread-safe: writers never wait (<see cref="ExemplarSlot"/>), reads may run beside them.</remarks>
internal sealed class BucketExemplarReservoir : ExemplarReservoir
{
    /// <summary>Creates an empty reservoir of <paramref name="slotCount"/> exemplars per partition.</summary>
    /// <param name="slotCount">Exemplars per partition: one per slot an add offers.</param>
    /// <param name="alwaysOn">Whether every measurement is kept (<see cref="ExemplarFilter.AlwaysOn"/>), not only those of a recorded activity.</param>
    public BucketExemplarReservoir(int slotCount, bool alwaysOn = false)
        : base(slotCount, alwaysOn)
    {
    }

    /// <summary>Keeps <paramref name="value"/> in slot <paramref name="slot"/> of the calling partition if the filter samples it.</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    public override void Offer(int slot, double value)
    {
        if (Samples(out ActivityTraceId traceId, out ActivitySpanId spanId))
        {
            Write(ProcessorId.CurrentPartition(), slot, value, DateTime.UtcNow.Ticks, traceId, spanId);
        }
    }

    /// <summary>The newest exemplar of every slot (<see cref="ExemplarReservoir.ReadNewest"/>), indexed as the slots.</summary>
    public override bool ReadInto(Span<Exemplar?> exemplars)
    {
        if (Partitions is null)
        {
            return false;
        }

        for (int slot = 0; slot < SlotCount; slot++)
        {
            exemplars[slot] = ReadNewest(slot);
        }

        return true;
    }
}
