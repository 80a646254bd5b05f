using ScalableMetrics.Instruments.ExponentialHistograms;
using ScalableMetrics.Instruments.Histograms;

namespace ScalableMetrics;

/// <summary>
/// An exponential histogram series' cumulative buckets, count and sum, as collected, downscaled so
/// that its positive buckets span at most the instrument's <c>maxBuckets</c>. Immutable.
/// </summary>
/// <remarks>
/// <para>Positive bucket <c>PositiveOffset + j</c> counts values in (base^(offset + j), base^(offset + j + 1)]
/// with base = 2^(2^-<see cref="Scale"/>): OpenTelemetry's <c>ExponentialHistogramDataPoint</c> and
/// Prometheus' native histogram (schema = scale) read the same.</para>
/// <para>Downscaling by k (scale − k) merges each 2^k adjacent buckets into one, index i into i >> k,
/// as OpenTelemetry's exponential histogram does when its buckets outgrow their maximum; the counts stay exact.
/// It stops at scale -4, Prometheus' lowest schema, even where the buckets still span more.</para>
/// <para><see cref="Count"/> is the zero count plus the bucket counts. <see cref="Sum"/> is read in the
/// same pass but is its own slot: a record under way may show in one and not yet in the other.</para>
/// </remarks>
public sealed class ExponentialHistogramReading
{
    private ExponentialHistogramReading(TagSet tags, int scale, double zeroThreshold, long zeroCount, int positiveOffset, long[] positiveBucketCounts, double sum, Classic classic = default)
    {
        ClassicBoundaries = classic.Boundaries ?? [];
        ClassicCumulativeCounts = classic.Cumulative ?? [];
        ClassicCount = classic.Count;
        Tags = tags;
        Scale = scale;
        ZeroThreshold = zeroThreshold;
        ZeroCount = zeroCount;
        PositiveOffset = positiveOffset;
        PositiveBucketCounts = positiveBucketCounts;
        Sum = sum;

        // Each bucket saturates at long.MaxValue; so does their sum.
        Count = SaturatingCounts.Add(zeroCount, SaturatingCounts.Total(positiveBucketCounts));
    }

    /// <summary>The tags that name the series.</summary>
    public TagSet Tags { get; }

    /// <summary>The scale of <see cref="PositiveBucketCounts"/>: the instrument's, or lower where the reading was downscaled.</summary>
    public int Scale { get; }

    /// <summary>Values at or below this count in <see cref="ZeroCount"/>: the lower boundary of the instrument's first bucket.</summary>
    public double ZeroThreshold { get; }

    /// <summary>Values recorded at or below <see cref="ZeroThreshold"/>.</summary>
    public long ZeroCount { get; }

    /// <summary>The bucket index of <see cref="PositiveBucketCounts"/>[0] at <see cref="Scale"/>.</summary>
    public int PositiveOffset { get; }

    /// <summary>Values recorded per positive bucket, not cumulative, from the first non-empty to the last (empty when there is none).</summary>
    public IReadOnlyList<long> PositiveBucketCounts { get; }

    /// <summary>Values recorded (saturating at <see cref="long.MaxValue"/>).</summary>
    public long Count { get; }

    /// <summary>The sum of the values recorded; infinite once +∞ was recorded.</summary>
    public double Sum { get; }

    /// <summary>The instrument's classic bucket boundaries (<see cref="PartitionedExponentialHistogram.ClassicBoundaries"/>),
    /// or empty where it has none (and for a histogram read from OpenTelemetry).</summary>
    public IReadOnlyList<double> ClassicBoundaries { get; }

    /// <summary>Per boundary of <see cref="ClassicBoundaries"/>, the values recorded at or below it
    /// (cumulative, as Prometheus' <c>le</c> buckets; the +∞ bucket's is the values above the last
    /// boundary plus the last of these). Counted apart from the exponential buckets, in the same
    /// pass: a record under way may show in one and not yet in the other.</summary>
    public IReadOnlyList<long> ClassicCumulativeCounts { get; }

    /// <summary>The values recorded per the classic buckets: the last of <see cref="ClassicCumulativeCounts"/>
    /// plus those above the last boundary; <see cref="Count"/> but for records under way.</summary>
    public long ClassicCount { get; }

    /// <summary>The upper boundary of positive bucket <paramref name="j"/> (of <see cref="PositiveBucketCounts"/>): base^(<see cref="PositiveOffset"/> + j + 1).</summary>
    internal double PositiveBucketUpperBoundary(int j) => ExponentialBuckets.LowerBoundary(PositiveOffset + j + 1, Scale);

    /// <summary>A reading of buckets counted elsewhere (an OpenTelemetry exponential histogram point), empty buckets at either end trimmed.</summary>
    internal static ExponentialHistogramReading Of(TagSet tags, int scale, double zeroThreshold, long zeroCount, int positiveOffset, long[] positiveBucketCounts, double sum)
    {
        int first = positiveBucketCounts.AsSpan().IndexOfAnyExcept(0L);
        if (first < 0)
        {
            return new ExponentialHistogramReading(tags, scale, zeroThreshold, zeroCount, 0, [], sum);
        }

        int last = positiveBucketCounts.AsSpan().LastIndexOfAnyExcept(0L);
        return new ExponentialHistogramReading(tags, scale, zeroThreshold, zeroCount, positiveOffset + first, positiveBucketCounts[first..(last + 1)], sum);
    }

    /// <summary>The reading of <paramref name="counts"/> (zero bucket first, then the instrument's positive buckets, then its classic buckets), downscaled to fit.</summary>
    internal static ExponentialHistogramReading Create(TagSet tags, ExponentialBuckets buckets, ReadOnlySpan<long> counts, double sum)
    {
        Classic classic = buckets.Classic is { } layout ? Classic.Of(layout.Boundaries, counts[buckets.ClassicFirstSlot..]) : default;
        ReadOnlySpan<long> positive = counts[1..buckets.ClassicFirstSlot];
        int first = positive.IndexOfAnyExcept(0L);
        if (first < 0)
        {
            return new ExponentialHistogramReading(tags, buckets.Scale, buckets.ZeroThreshold, counts[0], 0, [], sum, classic);
        }

        int last = positive.LastIndexOfAnyExcept(0L);
        int firstIndex = buckets.MinIndex + first;
        int lastIndex = buckets.MinIndex + last;
        int shift = 0;
        while ((lastIndex >> shift) - (firstIndex >> shift) + 1 > buckets.MaxBuckets && buckets.Scale - shift > ExponentialBuckets.MinScale)
        {
            shift++;
        }

        int offset = firstIndex >> shift;
        long[] merged = new long[(lastIndex >> shift) - offset + 1];
        for (int j = first; j <= last; j++)
        {
            ref long bucket = ref merged[((buckets.MinIndex + j) >> shift) - offset];
            bucket = SaturatingCounts.Add(bucket, positive[j]);
        }

        return new ExponentialHistogramReading(tags, buckets.Scale - shift, buckets.ZeroThreshold, counts[0], offset, merged, sum, classic);
    }

    /// <summary>The classic buckets of a reading: the boundaries, the cumulative count at each, and the total (the +∞ bucket's).</summary>
    private readonly record struct Classic(IReadOnlyList<double>? Boundaries, long[]? Cumulative, long Count)
    {
        // counts: one per classic bucket, the +∞ bucket last.
        public static Classic Of(IReadOnlyList<double> boundaries, ReadOnlySpan<long> counts)
        {
            long[] cumulative = new long[boundaries.Count];
            long total = 0;
            for (int i = 0; i < counts.Length; i++)
            {
                total = SaturatingCounts.Add(total, counts[i]);
                if (i < cumulative.Length)
                {
                    cumulative[i] = total;
                }
            }

            return new Classic(boundaries, cumulative, total);
        }
    }
}
