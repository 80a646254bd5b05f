using System.Diagnostics;
using System.Runtime.CompilerServices;
using ScalableMetrics.Platform.Rseq;

namespace ScalableMetrics.Cells;

/// <summary>
/// Adds to one slot, stopping at <see cref="long.MaxValue"/>: a value added is never lost to a
/// wrap into negative numbers (<c>Add(long.MaxValue); Add(1)</c> reads <see cref="long.MaxValue"/>).
/// Values added are zero or positive.
/// </summary>
/// <remarks>A struct with no fields, so that the write dispatch can be generic over it (<see cref="ISlotOperation{TValue}"/>).</remarks>
internal readonly unsafe struct SaturatingCell : ISlotOperation<long>
{
    /// <summary>Adds with a plain load and store: for a slot only the calling thread writes.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static void AddSingleWriter(long* slot, long value)
    {
        Debug.Assert(value >= 0, "a saturating slot takes zero or positive values");
        long result = *slot + value;
        Volatile.Write(ref *slot, result < 0 ? long.MaxValue : result);
    }

    /// <summary>
    /// Adds atomically: for a slot several threads may write at once. One compare-and-swap of the
    /// saturated sum; the retry loop (the slot changed in between) is out of line.
    /// </summary>
    /// <remarks>
    /// A compare-and-swap rather than <see cref="Interlocked.Add(ref long, long)"/> then a fix-up:
    /// with a fix-up, a third add landing between an add that wrapped and its fix-up could wrap the
    /// slot past 2^64 back to a small value, and a read would go down. Uncontended, as a
    /// per-processor slot nearly always is, it costs one locked instruction, as the add did.
    /// </remarks>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static void AddAtomic(long* slot, long value)
    {
        Debug.Assert(value >= 0, "a saturating slot takes zero or positive values");
        long current = Volatile.Read(ref *slot);
        long result = current + value;
        if (Interlocked.CompareExchange(ref *slot, result < 0 ? long.MaxValue : result, current) != current)
        {
            AddAtomicRetry(slot, value);
        }
    }

    /// <inheritdoc/>
    /// <remarks>
    /// <para>A value below 2^32 (every increment, count and duration) is added with one
    /// <c>lock xadd</c>, which is cheaper than a load and a <c>lock cmpxchg</c> (perf/results/README.md,
    /// "the compact add"); a larger one with one compare-and-swap, as <see cref="AddAtomic"/>.</para>
    /// <para>An atomic add cannot stop at <see cref="long.MaxValue"/>, so a compact slot saturates
    /// differently from a partition's: a total past <see cref="long.MaxValue"/> wraps into the
    /// negative numbers, every one of which reads as <see cref="long.MaxValue"/>
    /// (<see cref="SaturatingSum.Add"/>, <see cref="SaturatingSum.Saturate"/>), and the add that
    /// crosses into them (the sign bit is a crossing, <see cref="CompactWrites.Crossing"/>) returns it and
    /// moves the slot back to <see cref="long.MinValue"/>, as far from wrapping past 2^64 as a negative
    /// total gets (<see cref="SettleCompact"/>). Adds below 2^32 that land before it, or between two
    /// crossings, move it up by less than 2^32 × 2^<see cref="CompactWrites.CrossingShift"/> each writer.</para>
    /// </remarks>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static long AddCompact(long* slot, long value)
    {
        Debug.Assert(value >= 0, "a saturating slot takes zero or positive values");
        if ((ulong)value > uint.MaxValue)
        {
            return SwapCompact(slot, value);
        }

        return CompactWrites.Crossing(Interlocked.Add(ref *slot, value), value);
    }

    /// <inheritdoc/>
    public static bool CompactAddAlwaysLands => true;

    /// <inheritdoc/>
    /// <remarks>A negative total (past <see cref="long.MaxValue"/>, see <see cref="AddCompact"/>) goes back to <see cref="long.MinValue"/>, which reads the same.</remarks>
    public static void SettleCompact(long* slot)
    {
        long current = Volatile.Read(ref *slot);
        while (current < 0 && current != long.MinValue)
        {
            long seen = Interlocked.CompareExchange(ref *slot, long.MinValue, current);
            if (seen == current)
            {
                return;
            }

            current = seen;
        }
    }

    /// <inheritdoc cref="ISlotOperation{TValue}.TryAddRestartable"/>
    /// <remarks>Refuses an add only where the calling processor has no region (<see cref="RestartableSequence.TryAdd"/>).</remarks>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static bool TryAddRestartable(long* slotInRegion0, nint regionStride, long value) =>
        RestartableSequence.TryAdd(slotInRegion0, regionStride, value);

    // A compact slot's add of a value of 2^32 or more: compare-and-swaps of the saturated sum until
    // one lands, where a negative total (saturated, see AddCompact) stays as it is. 1 where a swap
    // failed: another writer met this one, which the series counts as a crossing.
    [MethodImpl(MethodImplOptions.NoInlining)]
    private static long SwapCompact(long* slot, long value)
    {
        long current = Volatile.Read(ref *slot);
        long first = 0;
        while (current >= 0)
        {
            long result = current + value;
            long seen = Interlocked.CompareExchange(ref *slot, result < 0 ? long.MaxValue : result, current);
            if (seen == current)
            {
                return first;
            }

            current = seen;
            first = 1;
        }

        return first;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void AddAtomicRetry(long* slot, long value)
    {
        long current = Volatile.Read(ref *slot);
        while (true)
        {
            long result = current + value;
            long seen = Interlocked.CompareExchange(ref *slot, result < 0 ? long.MaxValue : result, current);
            if (seen == current)
            {
                return;
            }

            current = seen;
        }
    }
}
