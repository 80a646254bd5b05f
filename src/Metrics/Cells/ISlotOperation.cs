using System.Numerics;

namespace ScalableMetrics.Cells;

/// <summary>
/// How one kind of slot takes an add, on each write path: <see cref="SaturatingCell"/>,
/// <see cref="WrappingCell"/> or <see cref="DoubleCell"/>. The series' one write dispatch is
/// generic over it, a struct, so that the JIT compiles a copy of the dispatch per kind with these
/// calls resolved and inlined: no interface call at run time, and no test of the kind.
/// </summary>
/// <typeparam name="TValue">What an add adds: <see cref="long"/> or <see cref="double"/>.</typeparam>
internal unsafe interface ISlotOperation<TValue>
    where TValue : unmanaged, INumberBase<TValue>
{
    /// <summary>Adds with a plain load and store: for a slot only the calling thread writes (<see cref="PerThreadWritePath"/>).</summary>
    static abstract void AddSingleWriter(long* slot, TValue value);

    /// <summary>Adds atomically: for a slot several threads may write at once (<see cref="InterlockedWritePath"/>, and the restartable path's overflow region).</summary>
    static abstract void AddAtomic(long* slot, TValue value);

    /// <summary>
    /// Adds atomically with one compare-and-swap: for a compact slot (<see cref="SlotRange"/> of a
    /// series that has not been promoted), which every thread writes.
    /// </summary>
    /// <returns><see langword="false"/>, with nothing added, where another thread wrote the slot between the load and the swap: the series is contended (java.util.concurrent's <c>Striped64</c> spreads on the same signal).</returns>
    static abstract bool TryAddAtomicOnce(long* slot, TValue value);

    /// <summary>Adds to the slot at <paramref name="slotInRegion0"/> in the calling processor's region, inside a restartable sequence (<see cref="RestartableWritePath"/>).</summary>
    /// <returns><see langword="false"/>, with nothing added, where the add was refused: then <see cref="AddToOverflowRegion"/>.</returns>
    static abstract bool TryAddRestartable(long* slotInRegion0, nint regionStride, TValue value);

    /// <summary>Adds to the slot at <paramref name="slotInRegion0"/> in the overflow region, <paramref name="overflowRegion"/>, atomically: the refused restartable add, out of line.</summary>
    static abstract void AddToOverflowRegion(long* slotInRegion0, nint regionStride, int overflowRegion, TValue value);
}
