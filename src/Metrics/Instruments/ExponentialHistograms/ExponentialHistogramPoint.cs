using ScalableMetrics.Instruments.Histograms;

namespace ScalableMetrics.Instruments.ExponentialHistograms;

/// <summary>
/// One exponential histogram series as read, over spans rather than arrays of its own: what an
/// <see cref="ExponentialHistogramReading"/> carries (see it for what each member means), read from
/// a snapshot (<see cref="Snapshots.InstrumentSnapshot.ExponentialHistogramAt"/>) or from a reading
/// (<see cref="ExponentialHistogramReading.Point"/>), so that a writer takes either without a
/// reading object per series.
/// </summary>
/// <remarks>Valid while what its spans are over is: for a point of a snapshot, until its next point or read.</remarks>
internal readonly ref struct ExponentialHistogramPoint
{
    /// <summary>A point of the given buckets; <see cref="Count"/> is the zero count plus the positive bucket counts, saturating.</summary>
    public ExponentialHistogramPoint(int scale, double zeroThreshold, long zeroCount, int positiveOffset, ReadOnlySpan<long> positiveBucketCounts, double sum, IReadOnlyList<double> classicBoundaries, ReadOnlySpan<long> classicCumulativeCounts, long classicCount, ReadOnlySpan<Exemplar> exemplars = default)
    {
        Exemplars = exemplars;
        Scale = scale;
        ZeroThreshold = zeroThreshold;
        ZeroCount = zeroCount;
        PositiveOffset = positiveOffset;
        PositiveBucketCounts = positiveBucketCounts;
        Sum = sum;
        ClassicBoundaries = classicBoundaries;
        ClassicCumulativeCounts = classicCumulativeCounts;
        ClassicCount = classicCount;

        // Each bucket saturates at long.MaxValue; so does their sum.
        Count = SaturatingCounts.Add(zeroCount, SaturatingCounts.Total(positiveBucketCounts));
    }

    /// <summary>The scale of <see cref="PositiveBucketCounts"/>.</summary>
    public int Scale { get; }

    /// <summary>Values at or below this count in <see cref="ZeroCount"/>.</summary>
    public double ZeroThreshold { get; }

    /// <summary>Values recorded at or below <see cref="ZeroThreshold"/>.</summary>
    public long ZeroCount { get; }

    /// <summary>The bucket index of <see cref="PositiveBucketCounts"/>[0] at <see cref="Scale"/>.</summary>
    public int PositiveOffset { get; }

    /// <summary>Values recorded per positive bucket, not cumulative, from the first non-empty to the last (empty when there is none).</summary>
    public ReadOnlySpan<long> PositiveBucketCounts { get; }

    /// <summary>Values recorded (saturating at <see cref="long.MaxValue"/>).</summary>
    public long Count { get; }

    /// <summary>The sum of the values recorded.</summary>
    public double Sum { get; }

    /// <summary>The instrument's classic bucket boundaries, or empty where it has none.</summary>
    public IReadOnlyList<double> ClassicBoundaries { get; }

    /// <summary>Per boundary of <see cref="ClassicBoundaries"/>, the values recorded at or below it (cumulative).</summary>
    public ReadOnlySpan<long> ClassicCumulativeCounts { get; }

    /// <summary>The values recorded per the classic buckets (the +∞ bucket's cumulative count).</summary>
    public long ClassicCount { get; }

    /// <summary>The series' sampled exemplars, oldest first (empty where it keeps none): see <see cref="ExponentialHistogramReading.Exemplars"/>.</summary>
    public ReadOnlySpan<Exemplar> Exemplars { get; }

    /// <summary>
    /// Of the last of <see cref="PositiveBucketCounts"/>, the values the instrument's top bucket counted: that
    /// bucket, maxValue's, also counts every value above its upper boundary (+∞ included), so these are not
    /// known to lie at or below any finite boundary. 0 where the top bucket is empty, and for buckets counted
    /// elsewhere (an OpenTelemetry point), which have no such bucket.
    /// </summary>
    public long TopBucketCount { get; init; }

    /// <summary>The upper boundary of positive bucket <paramref name="j"/>: base^(<see cref="PositiveOffset"/> + j + 1).</summary>
    public double PositiveBucketUpperBoundary(int j) => ExponentialBuckets.LowerBoundary(PositiveOffset + j + 1, Scale);

    /// <summary>How many longs <see cref="Of"/> needs of room for <paramref name="buckets"/>: the positive buckets and the classic boundaries.</summary>
    public static int RoomFor(ExponentialBuckets buckets) => buckets.BucketCount + (buckets.Classic?.Boundaries.Count ?? 0);

    /// <summary>
    /// The point of <paramref name="counts"/> (zero bucket first, then the instrument's positive
    /// buckets, then its classic buckets, as a series' slots), its positive buckets trimmed of
    /// empty ones at either end and downscaled, merging each 2^k adjacent buckets, until they span
    /// at most <see cref="ExponentialBuckets.MaxBuckets"/> (or the scale reaches
    /// <see cref="ExponentialBuckets.MinScale"/>); its classic counts made cumulative.
    /// </summary>
    /// <param name="buckets">The instrument's layout.</param>
    /// <param name="counts">The series' count slots, <see cref="ExponentialBuckets.CountSlots"/> of them.</param>
    /// <param name="sum">The series' sum.</param>
    /// <param name="room">Where the merged and cumulative counts are written: at least <see cref="RoomFor"/>, not overlapping <paramref name="counts"/>.</param>
    /// <param name="exemplars">The series' sampled exemplars, oldest first, read before the counts; empty for none.</param>
    public static ExponentialHistogramPoint Of(ExponentialBuckets buckets, ReadOnlySpan<long> counts, double sum, Span<long> room, ReadOnlySpan<Exemplar> exemplars = default)
    {
        IReadOnlyList<double> classicBoundaries = [];
        ReadOnlySpan<long> classicCumulative = default;
        long classicCount = 0;
        if (buckets.Classic is { } layout)
        {
            classicBoundaries = layout.Boundaries;
            Span<long> cumulative = room.Slice(buckets.BucketCount, classicBoundaries.Count);
            ReadOnlySpan<long> classicCounts = counts[buckets.ClassicFirstSlot..];
            for (int i = 0; i < classicCounts.Length; i++)
            {
                classicCount = SaturatingCounts.Add(classicCount, classicCounts[i]);
                if (i < cumulative.Length)
                {
                    cumulative[i] = classicCount;
                }
            }

            classicCumulative = cumulative;
        }

        ReadOnlySpan<long> positive = counts[1..buckets.ClassicFirstSlot];
        int first = positive.IndexOfAnyExcept(0L);
        if (first < 0)
        {
            return new ExponentialHistogramPoint(buckets.Scale, buckets.ZeroThreshold, counts[0], 0, default, sum, classicBoundaries, classicCumulative, classicCount, exemplars);
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
        Span<long> merged = room[..((lastIndex >> shift) - offset + 1)];
        merged.Clear();
        for (int j = first; j <= last; j++)
        {
            ref long bucket = ref merged[((buckets.MinIndex + j) >> shift) - offset];
            bucket = SaturatingCounts.Add(bucket, positive[j]);
        }

        return new ExponentialHistogramPoint(buckets.Scale - shift, buckets.ZeroThreshold, counts[0], offset, merged, sum, classicBoundaries, classicCumulative, classicCount, exemplars)
        {
            // The top bucket (maxValue's) is the last slot of positive; merged, it is in the last merged bucket.
            TopBucketCount = last == positive.Length - 1 ? positive[last] : 0,
        };
    }
}
