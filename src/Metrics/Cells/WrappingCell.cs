using System.Runtime.CompilerServices;
using ScalableMetrics.Platform.Rseq;

namespace ScalableMetrics.Cells;

/// <summary>
/// Adds of either sign to one slot, wrapping in two's complement: for up-down counters, whose
/// partitions may hold any value (a thread adds on one processor and subtracts on another) while
/// their wrapping sum is the exact total whenever that fits a <see cref="long"/>. Saturating a
/// partition would break that sum, so nothing here saturates.
/// </summary>
/// <remarks>A struct with no fields, so that the write dispatch can be generic over it (<see cref="ISlotOperation{TValue}"/>).</remarks>
internal readonly unsafe struct WrappingCell : ISlotOperation<long>
{
    /// <summary>Adds with a plain load and store: for a slot only the calling thread writes.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static void AddSingleWriter(long* slot, long value) => Volatile.Write(ref *slot, unchecked(*slot + value));

    /// <summary>Adds atomically: for a slot several threads may write at once.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static void AddAtomic(long* slot, long value) => Interlocked.Add(ref *slot, value);

    /// <inheritdoc/>
    /// <remarks>One <c>lock xadd</c>, whatever the value: a wrapping slot has no range to keep.</remarks>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static long AddCompact(long* slot, long value) => CompactWrites.Crossing(Interlocked.Add(ref *slot, value), value);

    /// <inheritdoc/>
    public static bool CompactAddAlwaysLands => true;

    /// <inheritdoc cref="ISlotOperation{TValue}.TryAddRestartable"/>
    /// <remarks>Refuses every add where the process has no wrapping restartable add (<see cref="RestartableSequence.WrappingAddUnavailableReason"/>): the adds then go to the overflow region (exact, contended).</remarks>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static bool TryAddRestartable(long* slotInRegion0, nint regionStride, long value) =>
        RestartableSequence.TryAddWrapping(slotInRegion0, regionStride, value);
}
