using System.Numerics;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;

namespace ScalableMetrics.Cells;

/// <summary>
/// Sums of slots whose values add as their type adds, with nothing to saturate: two's complement
/// for <see cref="long"/> (<see cref="WrappingSum"/>), IEEE addition for <see cref="double"/>
/// (<see cref="DoubleSum"/>). One vectorized loop for both.
/// </summary>
/// <remarks>
/// Element by element, in region order, as the scalar loop: a lane of a vector add is the same
/// addition as the scalar one, so the result does not depend on whether the hardware vectorizes.
/// </remarks>
internal static class ElementwiseSum
{
    /// <summary>Adds each of <paramref name="slots"/> into the same element of <paramref name="sums"/>; vectorized.</summary>
    /// <typeparam name="T"><see cref="long"/> or <see cref="double"/>.</typeparam>
    /// <param name="sums">The sums, as long as <paramref name="slots"/>.</param>
    /// <param name="slots">One region's run of slots.</param>
    public static void AddInto<T>(Span<T> sums, ReadOnlySpan<T> slots)
        where T : struct, INumberBase<T>
    {
        int i = 0;
        if (Vector.IsHardwareAccelerated && sums.Length >= Vector<T>.Count)
        {
            ref T sum0 = ref MemoryMarshal.GetReference(sums);
            ref T slot0 = ref MemoryMarshal.GetReference(slots);
            for (; i <= sums.Length - Vector<T>.Count; i += Vector<T>.Count)
            {
                ref byte sumAt = ref Unsafe.As<T, byte>(ref Unsafe.Add(ref sum0, i));
                var slot = Unsafe.ReadUnaligned<Vector<T>>(ref Unsafe.As<T, byte>(ref Unsafe.Add(ref slot0, i)));
                Unsafe.WriteUnaligned(ref sumAt, Unsafe.ReadUnaligned<Vector<T>>(ref sumAt) + slot);
            }
        }

        for (; i < sums.Length; i++)
        {
            // Unchecked for long: the wrap is the point (see WrappingSum).
            sums[i] = unchecked(sums[i] + slots[i]);
        }
    }
}
