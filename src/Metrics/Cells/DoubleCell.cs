using System.Diagnostics;
using System.Runtime.CompilerServices;
using ScalableMetrics.Platform.Rseq;

namespace ScalableMetrics.Cells;

/// <summary>
/// Adds to one slot that holds a <see cref="double"/>'s bits (<see cref="SlotSum.Double"/>). A
/// double never wraps: past <see cref="double.MaxValue"/> it is infinite, which is what a read
/// then shows. Callers refuse NaN.
/// </summary>
/// <remarks>A struct with no fields, so that the write dispatch can be generic over it (<see cref="ISlotOperation{TValue}"/>).</remarks>
internal readonly unsafe struct DoubleCell : ISlotOperation<double>
{
    /// <summary>Adds with a plain load and store: for a slot only the calling thread writes.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static void AddSingleWriter(long* slot, double value)
    {
        Debug.Assert(!double.IsNaN(value), "callers refuse NaN");
        double* cell = (double*)slot;
        Volatile.Write(ref *cell, *cell + value);
    }

    /// <summary>Adds atomically, a compare-and-swap loop: for a slot several threads may write at once.</summary>
    /// <remarks>Compared as bits, not as doubles: -0.0 equals 0.0 and NaN equals nothing, and either would make a failed swap look like a success, or loop forever.</remarks>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static void AddAtomic(long* slot, double value)
    {
        Debug.Assert(!double.IsNaN(value), "callers refuse NaN");
        long current = Volatile.Read(ref *slot);
        long result = BitConverter.DoubleToInt64Bits(BitConverter.Int64BitsToDouble(current) + value);
        if (Interlocked.CompareExchange(ref *slot, result, current) != current)
        {
            AddAtomicRetry(slot, value);
        }
    }

    /// <inheritdoc/>
    /// <remarks>One compare-and-swap (no processor adds doubles atomically), refused where it fails: a double slot gives no crossing, so a series whose compact slots are all doubles is promoted on a failed swap only.</remarks>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static long AddCompact(long* slot, double value)
    {
        Debug.Assert(!double.IsNaN(value), "callers refuse NaN");
        long current = Volatile.Read(ref *slot);
        long result = BitConverter.DoubleToInt64Bits(BitConverter.Int64BitsToDouble(current) + value);
        return Interlocked.CompareExchange(ref *slot, result, current) ^ current;
    }

    /// <inheritdoc/>
    public static bool CompactAddAlwaysLands => false;

    /// <inheritdoc cref="ISlotOperation{TValue}.TryAddRestartable"/>
    /// <remarks>Refuses every add where the process has no double restartable add (<see cref="RestartableSequence.DoubleAddUnavailableReason"/>): the adds then go to the overflow region (exact, contended).</remarks>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static bool TryAddRestartable(long* slotInRegion0, nint regionStride, double value) =>
        RestartableSequence.TryAddDouble(slotInRegion0, regionStride, value);

    /// <summary>Reads the slot as a <see cref="double"/>.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static double Read(long* slot) => BitConverter.Int64BitsToDouble(Volatile.Read(ref *slot));

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void AddAtomicRetry(long* slot, double value)
    {
        long current = Volatile.Read(ref *slot);
        while (true)
        {
            long result = BitConverter.DoubleToInt64Bits(BitConverter.Int64BitsToDouble(current) + value);
            long seen = Interlocked.CompareExchange(ref *slot, result, current);
            if (seen == current)
            {
                return;
            }

            current = seen;
        }
    }
}
