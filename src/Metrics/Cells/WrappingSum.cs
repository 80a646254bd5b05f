using System.Numerics;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;

namespace ScalableMetrics.Cells;

/// <summary>
/// Sums of slots that hold wrapping adds (<see cref="SlotSum.Wrapping"/>): two's complement, so
/// that the total is exact whenever it fits a <see cref="long"/>, whatever each partition holds.
/// </summary>
internal static class WrappingSum
{
    /// <summary>Adds each of <paramref name="slots"/> into the same element of <paramref name="sums"/>, wrapping; vectorized.</summary>
    public static void AddInto(Span<long> sums, ReadOnlySpan<long> slots)
    {
        int i = 0;
        if (Vector.IsHardwareAccelerated && sums.Length >= Vector<long>.Count)
        {
            ref long sum0 = ref MemoryMarshal.GetReference(sums);
            ref long slot0 = ref MemoryMarshal.GetReference(slots);
            for (; i <= sums.Length - Vector<long>.Count; i += Vector<long>.Count)
            {
                ref byte sumAt = ref Unsafe.As<long, byte>(ref Unsafe.Add(ref sum0, i));
                var slot = Unsafe.ReadUnaligned<Vector<long>>(ref Unsafe.As<long, byte>(ref Unsafe.Add(ref slot0, i)));
                Unsafe.WriteUnaligned(ref sumAt, Unsafe.ReadUnaligned<Vector<long>>(ref sumAt) + slot);
            }
        }

        for (; i < sums.Length; i++)
        {
            sums[i] = unchecked(sums[i] + slots[i]);
        }
    }
}
