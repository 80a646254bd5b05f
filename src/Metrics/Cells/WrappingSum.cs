namespace ScalableMetrics.Cells;

/// <summary>
/// Sums of slots that hold wrapping adds (<see cref="SlotSum.Wrapping"/>): two's complement, so
/// that the total is exact whenever it fits a <see cref="long"/>, whatever each partition holds.
/// </summary>
internal static class WrappingSum
{
    /// <summary>Adds each of <paramref name="slots"/> into the same element of <paramref name="sums"/>, wrapping; vectorized (<see cref="ElementwiseSum"/>).</summary>
    public static void AddInto(Span<long> sums, ReadOnlySpan<long> slots) => ElementwiseSum.AddInto(sums, slots);
}
