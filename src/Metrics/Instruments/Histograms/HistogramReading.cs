using ScalableMetrics.Instruments.Histograms;

namespace ScalableMetrics;

/// <summary>A histogram series' cumulative buckets, count and sum, as collected. Immutable.</summary>
/// <remarks>
/// <see cref="Count"/> is the sum of <see cref="BucketCounts"/>, so that an exposition's <c>_count</c>
/// always equals its <c>+Inf</c> bucket. <see cref="Sum"/> is read in the same pass but is its own
/// slot: a record under way while the series is read may show in the buckets and not yet in the
/// sum, or the other way round.
/// </remarks>
public sealed class HistogramReading
{
    internal HistogramReading(TagSet tags, IReadOnlyList<double> boundaries, long[] bucketCounts, double sum, Exemplar?[]? exemplars = null)
    {
        Exemplars = exemplars;
        Tags = tags;
        Boundaries = boundaries;
        BucketCounts = bucketCounts;
        Sum = sum;

        // Each bucket saturates at long.MaxValue; so does their sum.
        Count = SaturatingCounts.Total(bucketCounts);
    }

    /// <summary>The tags that name the series.</summary>
    public TagSet Tags { get; }

    /// <summary>The histogram's bucket boundaries, strictly increasing (<see cref="PartitionedHistogram.Boundaries"/>).</summary>
    public IReadOnlyList<double> Boundaries { get; }

    /// <summary>
    /// Values recorded per bucket, not cumulative: one more entry than <see cref="Boundaries"/>. Entry
    /// i counts values in (<c>Boundaries[i - 1]</c>, <c>Boundaries[i]</c>]; the last, values above the last boundary.
    /// </summary>
    public IReadOnlyList<long> BucketCounts { get; }

    /// <summary>Values recorded: the sum of <see cref="BucketCounts"/> (saturating at <see cref="long.MaxValue"/>).</summary>
    public long Count { get; }

    /// <summary>The sum of the values recorded; infinite once an infinite value was recorded.</summary>
    public double Sum { get; }

    /// <summary>
    /// The newest <see cref="Exemplar"/> of each bucket, indexed as <see cref="BucketCounts"/> (an
    /// entry null where the bucket has none); null where the series has kept none at all
    /// (<see cref="MetricRegistryOptions.ExemplarFilter"/> is <see cref="ExemplarFilter.None"/>, or no
    /// record was sampled yet).
    /// </summary>
    /// <remarks>Read before the counts: every exemplar's record is counted in <see cref="BucketCounts"/>.</remarks>
    public IReadOnlyList<Exemplar?>? Exemplars { get; }
}
