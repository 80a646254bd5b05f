using System.Runtime.CompilerServices;
using ScalableMetrics.Cells;
using ScalableMetrics.Instruments;
using ScalableMetrics.Instruments.Histograms;
using ScalableMetrics.Snapshots;

namespace ScalableMetrics;

/// <summary>
/// One series of a <see cref="PartitionedHistogram"/>, bound to a fixed tag set: records values
/// without a lookup and without allocating. A record finds the value's bucket and adds 1 to that
/// bucket's count and the value to the sum, in the calling partition, each exactly once.
/// </summary>
/// <remarks>
/// <para>Thread-safe. Get one from <see cref="SeriesInstrument{TSeries}.Bind">PartitionedHistogram.Bind</see>, once, and keep it.</para>
/// <para>Its slots in each region: one count per bucket (boundaries + 1), then the sum (a <see cref="double"/>).</para>
/// <para>With <see cref="MetricRegistryOptions.ExemplarFilter"/> on, a record the filter samples is
/// also kept as the calling partition's <see cref="Exemplar"/> of the value's bucket, after the record.</para>
/// </remarks>
public sealed class HistogramSeries : PartitionedSeries
{
    private readonly HistogramBuckets _buckets;

    internal HistogramSeries(TagSet tags, PartitionArena arena, HistogramBuckets buckets, ExemplarFilter exemplarFilter = ExemplarFilter.None)
        : base(tags, arena, SlotCountFor(buckets), exemplarFilter, buckets.BucketCount)
    {
        _buckets = buckets;
    }

    /// <summary>Records <paramref name="value"/>.</summary>
    /// <param name="value">The value; -∞ counts in the first bucket and +∞ in the last, and the sum is then infinite.</param>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="value"/> is NaN; nothing is recorded.</exception>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public void Record(double value)
    {
        if (double.IsNaN(value))
        {
            ThrowHelper.ThrowNaN(nameof(value));
        }

        RecordValid(value);
    }

    /// <summary>Records <paramref name="value"/>, converted to <see cref="double"/> (exact up to 2^53 in magnitude).</summary>
    /// <param name="value">The value.</param>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public void Record(long value) => RecordValid(value);

    /// <summary>Sums the series' partitions: its buckets, count and sum since it was created.</summary>
    /// <returns>The cumulative reading; each bucket count never lower than an earlier read of it returned.</returns>
    public HistogramReading Read()
    {
        // Exemplars first, so that every exemplar's record is in the counts read after it.
        Exemplar?[]? exemplars = ReadExemplars();
        long[] counts = new long[_buckets.BucketCount];
        double sum = ReadSlotsAndDouble(0, counts, SumSlot);
        return new HistogramReading(Tags, _buckets.Boundaries, counts, sum, exemplars);
    }

    /// <summary>Records <paramref name="value"/>, known not to be NaN.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    internal void RecordValid(double value) => AddCountAndValue<DoubleCell, double>(_buckets.Find(value), SumSlot, value);

    /// <summary>Records <paramref name="value"/>, known not to be NaN, in bucket <paramref name="bucket"/> (0 to the
    /// boundaries' count), whatever bucket the value itself falls in: for a listened <c>Histogram&lt;float&gt;</c>, whose
    /// measurement equal to an advised boundary counts in that boundary's bucket, though the boundary is kept as its
    /// shortest decimal, below the measurement (0.1f: 0.1, and the measurement 0.10000000149011612). The sum adds
    /// <paramref name="value"/>; an exemplar kept of the record carries <paramref name="exemplarValue"/> (that boundary,
    /// 0.1), so that it lies within its bucket, as OpenMetrics requires of a bucket's exemplar.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    internal void RecordValidInBucket(int bucket, double value, double exemplarValue) =>
        AddCountAndValue<DoubleCell, double>(bucket, SumSlot, value, exemplarValue);

    /// <summary>The newest exemplar of each bucket, or null where none was ever kept (or the registry keeps none).</summary>
    internal Exemplar?[]? ReadExemplars() => Exemplars?.Read();

    /// <summary>As <see cref="ReadExemplars"/>, into <paramref name="exemplars"/> (one per bucket): false, and nothing written, where none was ever kept.</summary>
    internal bool ReadExemplarsInto(Span<Exemplar?> exemplars) => Exemplars?.ReadInto(exemplars) ?? false;

    /// <summary>The slots a series of <paramref name="buckets"/> takes in each region: a count per bucket, then the sum.</summary>
    internal static int SlotCountFor(HistogramBuckets buckets) => buckets.BucketCount + 1;

    /// <summary>
    /// Reads every series in <paramref name="series"/> (all of <paramref name="arena"/>, all of
    /// <paramref name="buckets"/>) into <paramref name="snapshot"/> in one pass: each series'
    /// bucket counts (<see cref="SlotCountFor"/> longs apart) and its sum; <paramref name="collection"/>:
    /// a collection of the instrument (see <see cref="PartitionedSeries.ReadAll{TSeries}"/>).
    /// </summary>
    internal static void ReadAllInto(PartitionArena arena, ReadOnlySpan<HistogramSeries> series, HistogramBuckets buckets, InstrumentSnapshot snapshot, bool collection) =>
        ReadAll(arena, series, snapshot.Ranges(series.Length), SlotCountFor(buckets), buckets.BucketCount, snapshot.Longs(), snapshot.Doubles(), collection: collection);

    // The sum's slot: after the bucket counts.
    private int SumSlot => _buckets.BucketCount;

    /// <inheritdoc/>
    private protected override int RecordCountSlots => _buckets.BucketCount;
}
