using ScalableMetrics.Instruments.ExponentialHistograms;

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
    // The most longs Create merges into on the stack (4 KiB): the positive buckets of any layout, and a few classic ones.
    private const int MaxStackRoom = ExponentialBuckets.MaxBucketCount + 64;

    // Arrays of the reading's own, which Point lends as spans.
    private readonly long[] _positiveBucketCounts;
    private readonly long[] _classicCumulativeCounts;
    private readonly Exemplar[] _exemplars;

    // The reading of a point: its scalars, and its spans as the arrays given.
    private ExponentialHistogramReading(TagSet tags, ExponentialHistogramPoint point, long[] positiveBucketCounts, long[] classicCumulativeCounts, Exemplar[] exemplars)
    {
        _exemplars = exemplars;
        Tags = tags;
        Scale = point.Scale;
        ZeroThreshold = point.ZeroThreshold;
        ZeroCount = point.ZeroCount;
        PositiveOffset = point.PositiveOffset;
        _positiveBucketCounts = positiveBucketCounts;
        Count = point.Count;
        Sum = point.Sum;
        ClassicBoundaries = point.ClassicBoundaries;
        _classicCumulativeCounts = classicCumulativeCounts;
        ClassicCount = point.ClassicCount;
        TopBucketCount = point.TopBucketCount;
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
    public IReadOnlyList<long> PositiveBucketCounts => _positiveBucketCounts;

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
    public IReadOnlyList<long> ClassicCumulativeCounts => _classicCumulativeCounts;

    /// <summary>The values recorded per the classic buckets: the last of <see cref="ClassicCumulativeCounts"/>
    /// plus those above the last boundary; <see cref="Count"/> but for records under way.</summary>
    public long ClassicCount { get; }

    /// <summary>
    /// The series' sampled exemplars, oldest first: with <see cref="MetricRegistryOptions.ExemplarFilter"/>
    /// (or a view's) on, up to min(20, <see cref="PartitionedExponentialHistogram.MaxBuckets"/>) of
    /// the measurements the filter sampled, chosen by reservoir sampling as OpenTelemetry's
    /// <c>SimpleFixedSizeExemplarReservoir</c> chooses them; empty where the series keeps none or
    /// none was sampled yet.
    /// </summary>
    /// <remarks>Read before the counts: every exemplar's record is counted in the buckets. Not tied
    /// to a bucket: an exemplar's bucket is the one its <see cref="Exemplar.Value"/> falls in.</remarks>
    public IReadOnlyList<Exemplar> Exemplars => _exemplars;

    /// <summary>Of the last positive bucket's count, the values the instrument's top bucket counted, some perhaps
    /// above its upper boundary (<see cref="ExponentialHistogramPoint.TopBucketCount"/>).</summary>
    internal long TopBucketCount { get; }

    /// <summary>The reading as a point (the form the exposition writes), over the reading's own arrays: nothing allocated.</summary>
    internal ExponentialHistogramPoint Point =>
        new(Scale, ZeroThreshold, ZeroCount, PositiveOffset, _positiveBucketCounts, Sum, ClassicBoundaries, _classicCumulativeCounts, ClassicCount, _exemplars)
        {
            TopBucketCount = TopBucketCount,
        };

    /// <summary>A reading of buckets counted elsewhere (an OpenTelemetry exponential histogram point), empty buckets at either end trimmed.</summary>
    internal static ExponentialHistogramReading Of(TagSet tags, int scale, double zeroThreshold, long zeroCount, int positiveOffset, long[] positiveBucketCounts, double sum)
    {
        int first = positiveBucketCounts.AsSpan().IndexOfAnyExcept(0L);
        int last = positiveBucketCounts.AsSpan().LastIndexOfAnyExcept(0L);
        long[] trimmed = first < 0 ? [] : positiveBucketCounts[first..(last + 1)];
        var point = new ExponentialHistogramPoint(scale, zeroThreshold, zeroCount, first < 0 ? 0 : positiveOffset + first, trimmed, sum, [], default, 0);
        return new ExponentialHistogramReading(tags, point, trimmed, [], []);
    }

    /// <summary>The reading of <paramref name="counts"/> (zero bucket first, then the instrument's positive buckets, then its classic buckets), downscaled to fit (<see cref="ExponentialHistogramPoint.Of"/>), with <paramref name="exemplars"/> (oldest first).</summary>
    internal static ExponentialHistogramReading Create(TagSet tags, ExponentialBuckets buckets, ReadOnlySpan<long> counts, double sum, ReadOnlySpan<Exemplar> exemplars = default)
    {
        int room = ExponentialHistogramPoint.RoomFor(buckets);
        ExponentialHistogramPoint point = ExponentialHistogramPoint.Of(buckets, counts, sum, room <= MaxStackRoom ? stackalloc long[room] : new long[room], exemplars);
        return new ExponentialHistogramReading(tags, point, point.PositiveBucketCounts.ToArray(), point.ClassicCumulativeCounts.ToArray(), exemplars.ToArray());
    }
}
