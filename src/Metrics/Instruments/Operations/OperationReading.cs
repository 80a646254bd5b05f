using System.Diagnostics;
using ScalableMetrics.Instruments.Histograms;

namespace ScalableMetrics;

/// <summary>An operation series' cumulative count and elapsed time, as collected.</summary>
/// <param name="Tags">The tags that name the series.</param>
/// <param name="Count">Operations recorded since the series was created; with bucket boundaries, the sum of <see cref="BucketCounts"/>.</param>
/// <param name="ElapsedTimestampTicks">Their total elapsed time in <see cref="Stopwatch"/> ticks (<see cref="Stopwatch.Frequency"/> per second).</param>
public readonly record struct OperationReading(TagSet Tags, long Count, long ElapsedTimestampTicks)
{
    /// <summary>The total elapsed time in seconds.</summary>
    public double ElapsedSeconds => (double)ElapsedTimestampTicks / Stopwatch.Frequency;

    /// <summary>
    /// With bucket boundaries (<see cref="OperationData.Boundaries"/>), operations per bucket, not
    /// cumulative: one more entry than the boundaries, entry i counting elapsed times in
    /// (<c>Boundaries[i - 1]</c>, <c>Boundaries[i]</c>] seconds; <see langword="null"/> without.
    /// </summary>
    public IReadOnlyList<long>? BucketCounts { get; init; }

    /// <summary>A reading with buckets, its count their sum (saturating at <see cref="long.MaxValue"/>).</summary>
    internal static OperationReading FromBuckets(TagSet tags, long[] bucketCounts, long elapsedTimestampTicks)
    {
        return new OperationReading(tags, SaturatingCounts.Total(bucketCounts), elapsedTimestampTicks) { BucketCounts = bucketCounts };
    }
}
