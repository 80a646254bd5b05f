using System.Runtime.CompilerServices;
using ScalableMetrics.Cells;
using ScalableMetrics.Instruments;
using ScalableMetrics.Instruments.ExponentialHistograms;
using ScalableMetrics.Snapshots;
using ScalableMetrics.Tags;

namespace ScalableMetrics;

/// <summary>
/// A histogram with exponential buckets (base 2^(2^-scale), OpenTelemetry's exponential histogram,
/// Prometheus' native histogram) whose every series is partitioned (per processor or per thread,
/// see <see cref="PartitionStrategy"/>): a record adds to one bucket count and the sum of the
/// calling partition, with no lock and no shared cache line, and the partitions are summed only
/// when collected.
/// </summary>
/// <remarks>
/// <para>Create one with <see cref="MetricRegistry.CreateExponentialHistogram"/>. All members are thread-safe.</para>
/// <para><b>A fixed scale and range, reduced at collection.</b> OpenTelemetry's exponential histogram
/// starts at scale 20 and downscales as values arrive, resizing its bucket array; here every
/// partition of every series is a fixed block of slots that writers add to with no lock, and a
/// block cannot be resized or rescaled under concurrent writers without losing or doubling counts.
/// So the scale (<see cref="Scale"/>) and the bucket range are fixed when the instrument is created
/// (one slot per bucket per partition), and a reading downscales, merging 2^k adjacent buckets, until
/// its non-empty buckets span at most <see cref="MaxBuckets"/>: the scale is still chosen and
/// reduced, at read time, and every count stays exact.</para>
/// <para>Bucket i counts values in (base^i, base^(i + 1)], the upper bound inclusive. Values at or
/// below <see cref="ZeroThreshold"/> (the lower boundary of the bucket of the <c>minValue</c> asked
/// for) count in the zero bucket; values above the bucket of <c>maxValue</c>, +∞ included, count in
/// the last bucket (and +∞ makes the sum infinite for good). NaN and negative values are refused
/// with <see cref="ArgumentOutOfRangeException"/>: the instrument measures magnitudes (durations,
/// sizes), and a negative range would double every series' slots.</para>
/// <para>Relative error: a bucket's upper bound is base times its lower, so a quantile read from it
/// is within base − 1 of the truth (2^(1/8) − 1 ≈ 9 % at the default scale 3).</para>
/// <para>Exported through the Prometheus protobuf exposition as a native histogram, with its
/// classic buckets in the same message where it has classic boundaries.</para>
/// <para><b>Classic buckets beside.</b> Given classic boundaries at creation, a record also counts
/// in the classic bucket (previous boundary, boundary] that holds the value, in a slot of its own,
/// as client_golang's histograms with both kinds count: exactly, whatever the boundaries (a
/// boundary inside an exponential bucket could not be read from it). A record then costs one more
/// add. The readings carry them cumulatively (<see cref="ExponentialHistogramReading.ClassicBoundaries"/>).</para>
/// </remarks>
public sealed class PartitionedExponentialHistogram : SeriesInstrument<ExponentialHistogramSeries>
{
    /// <summary>The default scale: 8 buckets per power of two, about 9 % relative error.</summary>
    public const int DefaultScale = 3;

    /// <summary>The default smallest value told apart from zero: 2^-10 (about a millisecond, in seconds).</summary>
    public const double DefaultMinValue = 1.0 / 1024;

    /// <summary>The default largest value kept in its own bucket: 2^20 (about 12 days in seconds; a megabyte in bytes).</summary>
    public const double DefaultMaxValue = 1 << 20;

    /// <summary>The default number of buckets a reading spans at most: every bucket of the default
    /// range at the default scale, (20 − (−10)) × 2^3 + 1 = 241, so that a series whose values span
    /// that range is read at <see cref="DefaultScale"/> and its quantiles keep that scale's error.</summary>
    /// <remarks>OpenTelemetry's default <c>MaxSize</c> is 160, which would read such a series at scale
    /// 2 (a quantile error of about 19 % instead of 9 %). Memory is the same either way: a series keeps
    /// a slot for every bucket of its range; the budget only bounds how many a reading exports.</remarks>
    public const int DefaultMaxBuckets = 241;
    internal PartitionedExponentialHistogram(string name, string? unit, string? description, ExponentialBuckets buckets, PartitionArena arena, int maxSeries, TagLimits tagLimits, ExemplarFilter exemplarFilter = ExemplarFilter.None)
        : base(name, unit, description, arena, maxSeries, tagLimits, tags => new ExponentialHistogramSeries(tags, arena, buckets, exemplarFilter))
    {
        Buckets = buckets;
    }

    /// <summary>The scale the instrument records at (from -4 to 8, Prometheus' native histogram schemas): base 2^(2^-scale).</summary>
    public int Scale => Buckets.Scale;

    /// <summary>Values at or below this count in the zero bucket.</summary>
    public double ZeroThreshold => Buckets.ZeroThreshold;

    /// <summary>The most buckets a reading spans; readings downscale to fit.</summary>
    public int MaxBuckets => Buckets.MaxBuckets;

    /// <summary>The classic bucket boundaries counted beside the exponential buckets (each bucket
    /// (previous, boundary], then one to +∞), or empty for none: see
    /// <see cref="MetricRegistry.CreateExponentialHistogram"/>.</summary>
    public IReadOnlyList<double> ClassicBoundaries => Buckets.Classic?.Boundaries ?? [];

    /// <summary>The layout, checked, with the bucket search.</summary>
    internal ExponentialBuckets Buckets { get; }

    /// <summary>Records <paramref name="value"/> in the series without tags.</summary>
    /// <param name="value">The value, zero or positive; +∞ counts in the last bucket.</param>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="value"/> is NaN or negative; nothing is recorded.</exception>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public void Record(double value)
    {
        ThrowIfNotRecordable(value);
        Table.GetOrAdd([]).RecordValid(value);
    }

    /// <summary>Records <paramref name="value"/> in the series named by <paramref name="tags"/>, creating it on first use.</summary>
    /// <param name="value">The value, zero or positive; +∞ counts in the last bucket.</param>
    /// <param name="tags">The series' tags, in any order; see <see cref="TagSet.Create"/> for the rules.</param>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="value"/> is NaN or negative; nothing is recorded.</exception>
    /// <exception cref="ArgumentException">A tag key is null, empty, repeated, reserved or too long, two keys export as one label name, a tag value is null, of an unsupported type or too long, or there are too many tags (see <see cref="MetricRegistryOptions"/>); nothing is recorded.</exception>
    public void Record(double value, params ReadOnlySpan<KeyValuePair<string, object?>> tags)
    {
        ThrowIfNotRecordable(value);
        Table.GetOrAdd(tags).RecordValid(value);
    }

    /// <summary>Records <paramref name="value"/>, converted to <see cref="double"/>, in the series without tags.</summary>
    /// <param name="value">The value, zero or positive.</param>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="value"/> is negative; nothing is recorded.</exception>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public void Record(long value) => Record((double)value);

    /// <summary>Records <paramref name="value"/>, converted to <see cref="double"/>, in the series named by <paramref name="tags"/>, creating it on first use.</summary>
    /// <param name="value">The value, zero or positive.</param>
    /// <param name="tags">The series' tags, in any order; see <see cref="TagSet.Create"/> for the rules.</param>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="value"/> is negative; nothing is recorded.</exception>
    /// <exception cref="ArgumentException">A tag key is null, empty, repeated, reserved or too long, two keys export as one label name, a tag value is null, of an unsupported type or too long, or there are too many tags (see <see cref="MetricRegistryOptions"/>); nothing is recorded.</exception>
    public void Record(long value, params ReadOnlySpan<KeyValuePair<string, object?>> tags) => Record((double)value, tags);

    /// <summary>Sums every series' partitions: bucket counts and sums, each reading downscaled to fit <see cref="MaxBuckets"/>; and reads each series' sampled exemplars (<see cref="ExponentialHistogramReading.Exemplars"/>).</summary>
    /// <returns>One reading per series, in no particular order.</returns>
    /// <remarks>One pass over the series' slots, region by region; serialized with every other read of the registry's series.</remarks>
    public IReadOnlyList<ExponentialHistogramReading> Collect() =>
        SnapshotReadings.Of(this, static (snapshot, i) => snapshot.ExponentialHistogramReadingAt(i));

    /// <inheritdoc/>
    /// <remarks>Each series' sampled exemplars first, where the series keep them (so that every
    /// exemplar's record is in the counts read after it), then one pass over the arena.</remarks>
    internal override void ReadInto(InstrumentSnapshot snapshot, bool collection)
    {
        ArraySegment<ExponentialHistogramSeries> series = Table.BeginRead(out long read, collection);
        snapshot.BeginSeries(series, ExponentialHistogramSeries.SlotCountFor(Buckets), doubles: true);
        snapshot.SetExponentialBuckets(Buckets);
        if (collection)
        {
            snapshot.ReadExemplars<ExponentialHistogramSeries>(series, ExponentialHistogramSeries.ExemplarCountFor(Buckets));
        }

        ExponentialHistogramSeries.ReadAllInto(Arena, series, Buckets, snapshot, collection);
        Table.EndRead(read, snapshot, IdleCollections);
    }

    /// <summary>Throws unless <paramref name="value"/> is zero, positive or +∞.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    internal static void ThrowIfNotRecordable(double value)
    {
        // !(value >= 0) is true for NaN and for negatives; -0.0 passes, into the zero bucket.
        if (!(value >= 0))
        {
            ThrowNotRecordable(value);
        }
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void ThrowNotRecordable(double value)
    {
        if (double.IsNaN(value))
        {
            ThrowHelper.ThrowNaN("value");
        }

        throw new ArgumentOutOfRangeException(nameof(value), value, "An exponential histogram records zero or positive values only.");
    }

    /// <inheritdoc/>
    internal override void Accept(IInstrumentSink sink) => sink.ExponentialHistogram(this);
}
