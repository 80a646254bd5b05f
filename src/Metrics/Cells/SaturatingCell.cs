using System.Diagnostics;
using System.Runtime.CompilerServices;

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
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static bool TryAddAtomicOnce(long* slot, long value)
    {
        Debug.Assert(value >= 0, "a saturating slot takes zero or positive values");
        long current = Volatile.Read(ref *slot);
        long result = current + value;
        return Interlocked.CompareExchange(ref *slot, result < 0 ? long.MaxValue : result, current) == current;
    }

    /// <inheritdoc cref="ISlotOperation{TValue}.TryAddRestartable"/>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static bool TryAddRestartable(long* slotInRegion0, nint regionStride, long value) =>
        RestartableWritePath.TryAdd(slotInRegion0, regionStride, value);

    /// <inheritdoc cref="ISlotOperation{TValue}.AddToOverflowRegion"/>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static void AddToOverflowRegion(long* slotInRegion0, nint regionStride, int overflowRegion, long value) =>
        RestartableWritePath.AddToOverflowRegion(slotInRegion0, regionStride, overflowRegion, value);

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
