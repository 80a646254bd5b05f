using System.Runtime.CompilerServices;
using ScalableMetrics.Cells;
using ScalableMetrics.Exemplars;
using ScalableMetrics.Instruments;
using ScalableMetrics.Instruments.ExponentialHistograms;
using ScalableMetrics.Snapshots;

namespace ScalableMetrics;

/// <summary>
/// One series of a <see cref="PartitionedExponentialHistogram"/>, bound to a fixed tag set: records
/// values without a lookup and without allocating. A record finds the value's bucket and adds 1 to
/// that bucket's count and the value to the sum, in the calling partition, each exactly once.
/// </summary>
/// <remarks>
/// <para>Thread-safe. Get one from <see cref="SeriesInstrument{TSeries}.Bind">PartitionedExponentialHistogram.Bind</see>, once, and keep it.</para>
/// <para>Its slots in each region: the zero bucket, one count per positive bucket, one per classic
/// bucket where the instrument has classic boundaries, then the sum (a <see cref="double"/>).</para>
/// <para>With <see cref="MetricRegistryOptions.ExemplarFilter"/> (or a view's) on, a record the
/// filter samples is also offered, after the record, to the series' reservoir of min(20, max
/// buckets) exemplars per partition (OpenTelemetry's <c>SimpleFixedSizeExemplarReservoir</c>, its
/// default for Base2 exponential histograms): one per bucket, at the recording scale, would cost
/// hundreds of slots per partition, and a reading downscales its buckets anyway.</para>
/// </remarks>
public sealed class ExponentialHistogramSeries : PartitionedSeries
{
    private readonly ExponentialBuckets _buckets;

    internal ExponentialHistogramSeries(TagSet tags, PartitionArena arena, ExponentialBuckets buckets, ExemplarFilter exemplarFilter = ExemplarFilter.None)
        : base(tags, arena, SlotCountFor(buckets), ExemplarReservoir.CreateFixedSize(exemplarFilter, ExemplarCountFor(buckets), offeredSlots: buckets.ClassicFirstSlot))
    {
        _buckets = buckets;
    }

    /// <summary>Records <paramref name="value"/>.</summary>
    /// <param name="value">The value, zero or positive; +∞ counts in the last bucket, and the sum is then infinite.</param>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="value"/> is NaN or negative; nothing is recorded.</exception>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public void Record(double value)
    {
        PartitionedExponentialHistogram.ThrowIfNotRecordable(value);
        RecordValid(value);
    }

    /// <summary>Records <paramref name="value"/>, converted to <see cref="double"/> (exact up to 2^53).</summary>
    /// <param name="value">The value, zero or positive.</param>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="value"/> is negative; nothing is recorded.</exception>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public void Record(long value) => Record((double)value);

    /// <summary>Sums the series' partitions: its buckets, count and sum since it was created, downscaled to at most the instrument's <c>maxBuckets</c>.</summary>
    /// <returns>The cumulative reading.</returns>
    public ExponentialHistogramReading Read()
    {
        // Exemplars first, so that every exemplar's record is in the counts read after it.
        Exemplar?[]? read = Exemplars?.Read();
        Exemplar[] exemplars = read is null ? [] : [.. read.TakeWhile(static e => e is not null).Select(static e => e!.Value)];
        long[] counts = new long[_buckets.CountSlots];
        double sum = ReadSlotsAndDouble(0, counts, SumSlot);
        return ExponentialHistogramReading.Create(Tags, _buckets, counts, sum, exemplars);
    }

    /// <summary>Records <paramref name="value"/>, known to be neither NaN nor negative.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    internal void RecordValid(double value)
    {
        AddCountAndValue<DoubleCell, double>(_buckets.Find(value), SumSlot, value);

        // The classic buckets are counted as they are recorded, as client_golang counts both
        // kinds: a classic boundary inside an exponential bucket could not be read from it exactly.
        if (_buckets.Classic is { } classic)
        {
            Add<SaturatingCell, long>(_buckets.ClassicFirstSlot + classic.Find(value), 1);
        }
    }

    /// <summary>The exemplars a series of <paramref name="buckets"/> keeps per partition and reads: min(20, max buckets), as OpenTelemetry sizes an exponential histogram's reservoir.</summary>
    internal static int ExemplarCountFor(ExponentialBuckets buckets) => SimpleFixedSizeExemplarReservoir.SizeFor(buckets.MaxBuckets);

    /// <summary>The slots a series of <paramref name="buckets"/> takes in each region: the zero bucket, a count per positive bucket, one per classic bucket, then the sum.</summary>
    internal static int SlotCountFor(ExponentialBuckets buckets) => buckets.CountSlots + 1;

    /// <summary>
    /// Reads every series in <paramref name="series"/> (all of <paramref name="arena"/>, all of
    /// <paramref name="buckets"/>) into <paramref name="snapshot"/> in one pass: each series'
    /// count slots, zero bucket first (<see cref="SlotCountFor"/> longs apart), and its sum;
    /// <paramref name="collection"/>: a collection of the instrument (see <see cref="PartitionedSeries.ReadAll{TSeries}"/>).
    /// </summary>
    internal static void ReadAllInto(PartitionArena arena, ReadOnlySpan<ExponentialHistogramSeries> series, ExponentialBuckets buckets, InstrumentSnapshot snapshot, bool collection) =>
        ReadAll(arena, series, snapshot.Ranges(series.Length), SlotCountFor(buckets), buckets.CountSlots, snapshot.Longs(), snapshot.Doubles(), collection: collection);

    // The sum's slot: after the count slots.
    private int SumSlot => _buckets.CountSlots;

    /// <inheritdoc/>
    /// <remarks>The zero bucket and the positive buckets; the classic buckets count the same records again.</remarks>
    private protected override int RecordCountSlots => _buckets.BucketCount + 1;
}
