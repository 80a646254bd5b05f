using System.Numerics;
using System.Runtime.CompilerServices;

namespace ScalableMetrics.Cells;

/// <summary>
/// The signal an add to a compact slot gives for free: whether the slot's total crossed a multiple
/// of a power of two scaled to the value added, so that a series notices about every
/// 2^<see cref="CrossingShift"/> adds, whatever it adds, with no count of its own (the lazy percpu
/// counter of bcachefs, <c>lib/lazy-percpu-counter.c</c>, notices its update rate when the low bits
/// of its atomic count wrap).
/// </summary>
internal static class CompactWrites
{
    /// <summary>log2 of the adds (of one size) between two crossings.</summary>
    public const int CrossingShift = 10;

    /// <summary>Whether an add of <paramref name="value"/> that made the slot <paramref name="total"/> crossed a multiple of 2^(<see cref="CrossingShift"/> + log2 |value|): other than 0 where it did.</summary>
    /// <remarks>ALU instructions only, on the total the atomic add returned; for a constant value the shift is a constant.</remarks>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static long Crossing(long total, long value)
    {
        // |value| | 1 without a branch; long.MinValue's magnitude is 2^63, whose shift past 63 is
        // capped: such an add notices every time, which costs a call and nothing else.
        ulong magnitude = (ulong)(value ^ (value >> 63)) | 1;
        int shift = Math.Min(CrossingShift + BitOperations.Log2(magnitude), 63);
        return (total ^ unchecked(total - value)) >> shift;
    }
}
