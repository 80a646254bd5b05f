using System.Diagnostics;

namespace ScalableMetrics.Exemplars;

/// <summary>
/// One exemplar behind a sequence lock (Linux's seqlock, <c>include/linux/seqlock.h</c>): a writer
/// takes the sequence from even to odd with a compare-and-swap, writes the fields, and publishes the
/// next even number; a reader copies the fields between two reads of an unchanged even sequence.
/// </summary>
/// <remarks>
/// A writer that finds the slot being written (or loses the compare-and-swap) skips: an exemplar is
/// a sample, and the measurement itself is recorded by the series' own write path, so nothing is
/// lost. No writer waits and no reader blocks a writer; a reader that keeps meeting writers gives up
/// after <see cref="ReadAttempts"/> tries and reports none for this slot.
/// </remarks>
internal struct ExemplarSlot
{
    /// <summary>The tries a read makes before it gives up on a slot that writers keep changing.</summary>
    internal const int ReadAttempts = 8;

    // Even: the fields below are one whole exemplar, 0 meaning none written yet; odd: a writer is
    // writing them.
    private long _sequence;
    private double _value;
    private long _timestampTicks;

    // Each a single reference (the activity's hex string), so that a copy is one store and the
    // write path allocates nothing and parses nothing.
    private ActivityTraceId _traceId;
    private ActivitySpanId _spanId;

    /// <summary>Writes an exemplar into <paramref name="slot"/> unless another writer holds it.</summary>
    /// <returns>Whether this exemplar was written.</returns>
    public static bool TryWrite(ref ExemplarSlot slot, double value, long timestampTicks, ActivityTraceId traceId, ActivitySpanId spanId)
    {
        long sequence = Volatile.Read(ref slot._sequence);
        if ((sequence & 1) != 0 || Interlocked.CompareExchange(ref slot._sequence, sequence + 1, sequence) != sequence)
        {
            return false;
        }

        // The compare-and-swap is a full fence: no store below becomes visible before the odd sequence.
        slot._value = value;
        slot._timestampTicks = timestampTicks;
        slot._traceId = traceId;
        slot._spanId = spanId;

        // A release: the fields are visible before the even sequence that says they are whole.
        Volatile.Write(ref slot._sequence, sequence + 2);
        return true;
    }

    /// <summary>Copies the exemplar in <paramref name="slot"/>, if one was written and a consistent copy could be taken.</summary>
    /// <param name="slot">The slot.</param>
    /// <param name="timestampTicks">Its timestamp, in UTC ticks (to compare slots without building the exemplar).</param>
    /// <param name="exemplar">The copy.</param>
    /// <returns>Whether <paramref name="exemplar"/> was copied.</returns>
    public static bool TryRead(ref ExemplarSlot slot, out long timestampTicks, out Exemplar exemplar)
    {
        for (int attempt = 0; attempt < ReadAttempts; attempt++)
        {
            long before = Volatile.Read(ref slot._sequence);
            if (before == 0)
            {
                break;
            }

            if ((before & 1) != 0)
            {
                Thread.SpinWait(1);
                continue;
            }

            double value = slot._value;
            long ticks = slot._timestampTicks;
            ActivityTraceId traceId = slot._traceId;
            ActivitySpanId spanId = slot._spanId;

            // The field reads complete before the sequence is read again (a load-load fence).
            Interlocked.MemoryBarrier();
            if (Volatile.Read(ref slot._sequence) == before)
            {
                timestampTicks = ticks;
                exemplar = new Exemplar(value, new DateTimeOffset(ticks, TimeSpan.Zero), traceId, spanId);
                return true;
            }
        }

        timestampTicks = 0;
        exemplar = default;
        return false;
    }
}
