namespace ScalableMetrics.Instruments.Histograms;

/// <summary>
/// Sums of bucket counts, as a reading totals its buckets and as an exposition makes them
/// cumulative: they stop at <see cref="long.MaxValue"/> instead of wrapping, as each bucket's
/// saturating slots do, so that a total or a cumulative count never goes down.
/// </summary>
/// <remarks>Beside the readings, not in the cells: a reading's reader (the exposition) needs it,
/// and reads readings, never cells.</remarks>
internal static class SaturatingCounts
{
    /// <summary><paramref name="sum"/> + <paramref name="count"/>, or <see cref="long.MaxValue"/> past it.</summary>
    /// <remarks>A negative count (which no bucket holds) counts as saturated too.</remarks>
    public static long Add(long sum, long count)
    {
        long result = sum + count;
        return (result | count) < 0 ? long.MaxValue : result;
    }

    /// <summary>The sum of <paramref name="counts"/>, or <see cref="long.MaxValue"/> past it.</summary>
    public static long Total(ReadOnlySpan<long> counts)
    {
        long total = 0;
        foreach (long count in counts)
        {
            total = Add(total, count);
        }

        return total;
    }
}
