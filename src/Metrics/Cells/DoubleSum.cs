using System.Runtime.InteropServices;

namespace ScalableMetrics.Cells;

/// <summary>
/// Sums of slots that hold a <see cref="double"/>'s bits (<see cref="SlotSum.Double"/>), kept as
/// bits in <see cref="long"/> spans so that every slot kind is read through the same runs.
/// </summary>
/// <remarks>Each slot is an aligned 8-byte element, written by one store, so a read never sees half of a double.</remarks>
internal static class DoubleSum
{
    /// <summary>Adds each of <paramref name="slots"/> into the same element of <paramref name="sums"/>, both read as doubles; vectorized (<see cref="ElementwiseSum"/>).</summary>
    public static void AddInto(Span<long> sums, ReadOnlySpan<long> slots) =>
        ElementwiseSum.AddInto(MemoryMarshal.Cast<long, double>(sums), MemoryMarshal.Cast<long, double>(slots));
}
