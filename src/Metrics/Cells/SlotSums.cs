using System.Runtime.CompilerServices;

namespace ScalableMetrics.Cells;

/// <summary>The sum of each <see cref="SlotSum"/>, chosen by the kind: one place that maps a kind to <see cref="SaturatingSum"/>, <see cref="WrappingSum"/> or <see cref="DoubleSum"/>.</summary>
internal static class SlotSums
{
    /// <summary>Adds each of <paramref name="slots"/> into the same element of <paramref name="sums"/>, as <paramref name="kind"/> sums (for <see cref="SlotSum.Double"/>, both hold the bits of doubles); vectorized.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static void AddInto(SlotSum kind, Span<long> sums, ReadOnlySpan<long> slots)
    {
        switch (kind)
        {
            case SlotSum.Saturating:
                SaturatingSum.AddInto(sums, slots);
                break;
            case SlotSum.Wrapping:
                WrappingSum.AddInto(sums, slots);
                break;
            default:
                DoubleSum.AddInto(sums, slots);
                break;
        }
    }
}
