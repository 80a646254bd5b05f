using System.Numerics;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;

namespace ScalableMetrics.Cells;

/// <summary>
/// Sums of slots that hold a <see cref="double"/>'s bits (<see cref="SlotSum.Double"/>), kept as
/// bits in <see cref="long"/> spans so that every slot kind is read through the same runs.
/// </summary>
/// <remarks>
/// Element by element, in region order, as the scalar loop: a lane of a vector add is the same
/// IEEE addition, so the result does not depend on whether the hardware vectorizes. Each slot is
/// an aligned 8-byte element, written by one store, so a read never sees half of a double.
/// </remarks>
internal static class DoubleSum
{
    /// <summary>Adds each of <paramref name="slots"/> into the same element of <paramref name="sums"/>, both read as doubles; vectorized.</summary>
    public static void AddInto(Span<long> sums, ReadOnlySpan<long> slots)
    {
        Span<double> doubleSums = MemoryMarshal.Cast<long, double>(sums);
        ReadOnlySpan<double> doubleSlots = MemoryMarshal.Cast<long, double>(slots);
        int i = 0;
        if (Vector.IsHardwareAccelerated && doubleSums.Length >= Vector<double>.Count)
        {
            ref double sum0 = ref MemoryMarshal.GetReference(doubleSums);
            ref double slot0 = ref MemoryMarshal.GetReference(doubleSlots);
            for (; i <= doubleSums.Length - Vector<double>.Count; i += Vector<double>.Count)
            {
                ref byte sumAt = ref Unsafe.As<double, byte>(ref Unsafe.Add(ref sum0, i));
                var slot = Unsafe.ReadUnaligned<Vector<double>>(ref Unsafe.As<double, byte>(ref Unsafe.Add(ref slot0, i)));
                Unsafe.WriteUnaligned(ref sumAt, Unsafe.ReadUnaligned<Vector<double>>(ref sumAt) + slot);
            }
        }

        for (; i < doubleSums.Length; i++)
        {
            doubleSums[i] += doubleSlots[i];
        }
    }
}
