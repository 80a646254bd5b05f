using System.Numerics;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;

namespace ScalableMetrics.Cells;

/// <summary>
/// Sums of slot values that stop at <see cref="long.MaxValue"/> instead of wrapping, so that a
/// counter read never goes down: every slot holds a value in [0, <see cref="long.MaxValue"/>]
/// (writers saturate), and the sum of two such values wraps, if at all, to a negative number.
/// </summary>
internal static class SaturatingSum
{
    /// <summary><paramref name="sum"/> + <paramref name="slot"/>, or <see cref="long.MaxValue"/> past it.</summary>
    /// <remarks>A negative slot (which no writer stores) counts as saturated too.</remarks>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static long Add(long sum, long slot)
    {
        long result = sum + slot;
        return (result | slot) < 0 ? long.MaxValue : result;
    }

    /// <summary>Adds each of <paramref name="slots"/> into the same element of <paramref name="sums"/>, saturating; vectorized.</summary>
    public static void AddInto(Span<long> sums, ReadOnlySpan<long> slots)
    {
        int i = 0;
        if (Vector.IsHardwareAccelerated && sums.Length >= Vector<long>.Count)
        {
            ref long sum0 = ref MemoryMarshal.GetReference(sums);
            ref long slot0 = ref MemoryMarshal.GetReference(slots);
            var max = new Vector<long>(long.MaxValue);
            for (; i <= sums.Length - Vector<long>.Count; i += Vector<long>.Count)
            {
                ref byte sumAt = ref Unsafe.As<long, byte>(ref Unsafe.Add(ref sum0, i));
                var slot = Unsafe.ReadUnaligned<Vector<long>>(ref Unsafe.As<long, byte>(ref Unsafe.Add(ref slot0, i)));
                Vector<long> result = Unsafe.ReadUnaligned<Vector<long>>(ref sumAt) + slot;
                Unsafe.WriteUnaligned(ref sumAt, Vector.ConditionalSelect(Vector.LessThan(result | slot, Vector<long>.Zero), max, result));
            }
        }

        for (; i < sums.Length; i++)
        {
            sums[i] = Add(sums[i], slots[i]);
        }
    }

    /// <summary>Reads every negative value of <paramref name="values"/> as <see cref="long.MaxValue"/>, in place; vectorized: the totals copied from compact slots, which past <see cref="long.MaxValue"/> hold a negative number (<see cref="SaturatingCell.AddCompact"/>).</summary>
    public static void Saturate(Span<long> values)
    {
        int i = 0;
        if (Vector.IsHardwareAccelerated && values.Length >= Vector<long>.Count)
        {
            ref long value0 = ref MemoryMarshal.GetReference(values);
            var max = new Vector<long>(long.MaxValue);
            for (; i <= values.Length - Vector<long>.Count; i += Vector<long>.Count)
            {
                ref byte at = ref Unsafe.As<long, byte>(ref Unsafe.Add(ref value0, i));
                Vector<long> value = Unsafe.ReadUnaligned<Vector<long>>(ref at);
                Unsafe.WriteUnaligned(ref at, Vector.ConditionalSelect(Vector.LessThan(value, Vector<long>.Zero), max, value));
            }
        }

        for (; i < values.Length; i++)
        {
            if (values[i] < 0)
            {
                values[i] = long.MaxValue;
            }
        }
    }
}
