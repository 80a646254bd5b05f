using ScalableMetrics.Instruments.ExponentialHistograms;
using ScalableMetrics.Instruments.Histograms;

namespace ScalableMetrics.Exporter.Prometheus.Exposition;

/// <summary>
/// The classic (<c>le</c>) buckets an exponential histogram is written with: the text formats
/// write them as its histogram; where the instrument has classic boundaries, the protobuf
/// exposition writes them beside its native buckets in the same <c>Histogram</c> message (as
/// client_golang writes a histogram of both kinds), so that its <c>_bucket</c> series are the
/// same whichever format Prometheus scrapes.
/// </summary>
/// <remarks>
/// <para>Where the instrument has classic boundaries (<see cref="ExponentialHistogramReading.ClassicBoundaries"/>),
/// those, with the counts the instrument keeps for them. Where it has none (and for a histogram of
/// another meter), the exponential buckets themselves, exact: the zero bucket as <c>le</c> = its
/// threshold, each non-empty bucket (base^i, base^(i + 1)] as <c>le</c> = base^(i + 1), cumulative.
/// Those <c>le</c> values follow the reading's buckets, so a bucket first filled starts a new
/// <c>le</c> series, as a native histogram's new bucket does.</para>
/// <para>The instrument's top bucket (maxValue's) also counts the values above maxValue, which no finite
/// <c>le</c> may claim (a bucket counts the values at or below its <c>le</c>): its count is written under
/// <c>le="+Inf"</c> only (<see cref="ExponentialHistogramPoint.TopBucketCount"/>). The last bucket's <c>le</c>,
/// where downscaling merged the top bucket into it, counts the rest of it; where nothing else is in it, it is
/// not written.</para>
/// <para>Kept by one writer and reused from series to series; not thread-safe.</para>
/// </remarks>
internal sealed class ClassicBuckets
{
    private readonly List<double> _boundaries = [];
    private readonly List<long> _cumulativeCounts = [];

    /// <summary>The finite upper boundaries, increasing.</summary>
    public IReadOnlyList<double> Boundaries => _boundaries;

    /// <summary>Per boundary, the values known to be at or below it.</summary>
    public IReadOnlyList<long> CumulativeCounts => _cumulativeCounts;

    /// <summary>The values in every bucket: the <c>le="+Inf"</c> bucket's count (the top bucket's among them).</summary>
    public long Count { get; private set; }

    /// <summary>Reads <paramref name="reading"/>'s classic buckets, replacing the last series'.</summary>
    public ClassicBuckets Of(ExponentialHistogramPoint reading)
    {
        _boundaries.Clear();
        _cumulativeCounts.Clear();
        if (reading.ClassicBoundaries.Count > 0)
        {
            _boundaries.AddRange(reading.ClassicBoundaries);
            _cumulativeCounts.AddRange(reading.ClassicCumulativeCounts);
            Count = reading.ClassicCount;
            return this;
        }

        long cumulative = reading.ZeroCount;
        if (cumulative > 0)
        {
            _boundaries.Add(reading.ZeroThreshold);
            _cumulativeCounts.Add(cumulative);
        }

        int lastBucket = reading.PositiveBucketCounts.Length - 1;
        for (int j = 0; j <= lastBucket; j++)
        {
            long count = reading.PositiveBucketCounts[j];
            if (j == lastBucket)
            {
                // The top bucket's values show under +Inf alone (Count), above every finite le.
                count = Math.Max(0, count - reading.TopBucketCount);
            }

            if (count == 0)
            {
                continue;
            }

            cumulative = SaturatingCounts.Add(cumulative, count);
            _boundaries.Add(reading.PositiveBucketUpperBoundary(j));
            _cumulativeCounts.Add(cumulative);
        }

        Count = reading.Count;
        return this;
    }
}
