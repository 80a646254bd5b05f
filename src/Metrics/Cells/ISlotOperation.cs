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
    /// Adds atomically to a compact slot (<see cref="SlotRange"/> of a series that has not been
    /// promoted), which every thread writes: with one atomic add where the kind has one (one
    /// locked instruction, as <see cref="Interlocked.Add(ref long, long)"/>), otherwise with one
    /// compare-and-swap.
    /// </summary>
    /// <returns>
    /// 0, added, where there is nothing to look at. Anything else where the series should look out
    /// of line: with <see cref="CompactAddAlwaysLands"/>, the value was added and the total crossed a
    /// multiple of a power of two (<see cref="CompactWrites.Crossing"/>), so the series looks at its
    /// write rate and calls <see cref="SettleCompact"/>; otherwise nothing was added, because a
    /// compare-and-swap met another thread's write: the series is contended (java.util.concurrent's
    /// <c>Striped64</c> spreads on the same signal). A number rather than a <see cref="bool"/>: the
    /// JIT then tests the flags of the instruction that computed it, where it would set a register
    /// to a returned <see cref="bool"/> and test that.
    /// </returns>
    static abstract long AddCompact(long* slot, TValue value);

    /// <summary>Whether <see cref="AddCompact"/> adds the value whatever it returns (an atomic add), or not where it returns other than 0 (a refused compare-and-swap).</summary>
    static abstract bool CompactAddAlwaysLands { get; }

    /// <summary>After an <see cref="AddCompact"/> that landed and returned other than 0, out of line: keeps the compact slot's total in the range its reads expect (a saturating slot's, see <see cref="SaturatingCell"/>).</summary>
    /// <remarks>Nothing by default: a wrapping slot has every total in range, and a double does not wrap. The JIT resolves the call for each struct, so the empty default costs nothing.</remarks>
    static virtual void SettleCompact(long* slot)
    {
    }

    /// <summary>Adds to the slot at <paramref name="slotInRegion0"/> in the calling processor's region, inside a restartable sequence (<see cref="RestartableWritePath"/>).</summary>
    /// <returns><see langword="false"/>, with nothing added, where the add was refused: then
    /// <see cref="RestartableWritePath.AddToOverflowRegion{TCell, TValue}"/>, this kind's <see cref="AddAtomic"/> to the overflow region.</returns>
    static abstract bool TryAddRestartable(long* slotInRegion0, nint regionStride, TValue value);
}
