using System.Collections.ObjectModel;
using System.Runtime.CompilerServices;
using ScalableMetrics.Cells;
using ScalableMetrics.Instruments;
using ScalableMetrics.Instruments.Histograms;
using ScalableMetrics.Snapshots;
using ScalableMetrics.Tags;

namespace ScalableMetrics;

/// <summary>
/// A histogram with explicit bucket boundaries whose every series is partitioned (per processor
/// or per thread, see <see cref="PartitionStrategy"/>): a record adds to one bucket count and the
/// sum of the calling partition, with no lock and no shared cache line, and the partitions are
/// summed only when collected.
/// </summary>
/// <remarks>
/// <para>Create one with <see cref="MetricRegistry.CreateHistogram"/>. All members are thread-safe.</para>
/// <para>Bucket i counts values in (<c>Boundaries[i - 1]</c>, <c>Boundaries[i]</c>]: the upper bound
/// is inclusive, as Prometheus' <c>le</c>; the last bucket counts values above the last boundary.
/// NaN is refused with <see cref="ArgumentOutOfRangeException"/> (OpenTelemetry ignores it; here a
/// caller's NaN is taken for the bug it is). -∞ counts in the first bucket and +∞ in the last, and
/// the series' sum is then infinite for good.</para>
/// <para>A bucket is found by a linear scan below <see cref="HistogramBuckets.BinarySearchFromBoundaryCount"/>
/// boundaries and by a binary search from there, as OpenTelemetry .NET does.</para>
/// <para>Exported cumulatively, as a Prometheus histogram: <c>B_bucket{le=…}</c>, <c>B_sum</c>, <c>B_count</c>.</para>
/// </remarks>
public sealed class PartitionedHistogram : SeriesInstrument<HistogramSeries>
{
    internal PartitionedHistogram(string name, string? unit, string? description, HistogramBuckets buckets, PartitionArena arena, int maxSeries, TagLimits tagLimits, ExemplarFilter exemplarFilter = ExemplarFilter.None)
        : base(name, unit, description, arena, maxSeries, tagLimits, tags => new HistogramSeries(tags, arena, buckets, exemplarFilter))
    {
        Buckets = buckets;
    }

    /// <summary>
    /// OpenTelemetry's default explicit bucket boundaries (specification, SDK, "Explicit Bucket
    /// Histogram Aggregation"): <c>[0, 5, 10, 25, 50, 75, 100, 250, 500, 750, 1000, 2500, 5000, 7500, 10000]</c>,
    /// what a histogram created without boundaries gets.
    /// </summary>
    public static IReadOnlyList<double> DefaultBoundaries { get; } = new ReadOnlyCollection<double>([0, 5, 10, 25, 50, 75, 100, 250, 500, 750, 1000, 2500, 5000, 7500, 10000]);

    /// <summary>The bucket boundaries, strictly increasing and finite: one fewer than the buckets.</summary>
    public IReadOnlyList<double> Boundaries => Buckets.Boundaries;

    /// <summary>The boundaries, checked and copied, with the bucket search.</summary>
    internal HistogramBuckets Buckets { get; }

    /// <summary>Records <paramref name="value"/> in the series without tags.</summary>
    /// <param name="value">The value; ±∞ counts in the first or last bucket.</param>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="value"/> is NaN; nothing is recorded.</exception>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public void Record(double value)
    {
        if (double.IsNaN(value))
        {
            ThrowHelper.ThrowNaN(nameof(value));
        }

        Table.GetOrAdd([]).RecordValid(value);
    }

    /// <summary>Records <paramref name="value"/> in the series named by <paramref name="tags"/>, creating it on first use.</summary>
    /// <param name="value">The value; ±∞ counts in the first or last bucket.</param>
    /// <param name="tags">The series' tags, in any order; see <see cref="TagSet.Create"/> for the rules.</param>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="value"/> is NaN; nothing is recorded.</exception>
    /// <exception cref="ArgumentException">A tag key is null, empty, repeated, reserved or too long, two keys export as one label name, a tag value is null, of an unsupported type or too long, or there are too many tags (see <see cref="MetricRegistryOptions"/>); nothing is recorded.</exception>
    public void Record(double value, params ReadOnlySpan<KeyValuePair<string, object?>> tags)
    {
        if (double.IsNaN(value))
        {
            ThrowHelper.ThrowNaN(nameof(value));
        }

        Table.GetOrAdd(tags).RecordValid(value);
    }

    /// <summary>Records <paramref name="value"/>, converted to <see cref="double"/>, in the series without tags.</summary>
    /// <param name="value">The value.</param>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public void Record(long value) => Table.GetOrAdd([]).RecordValid(value);

    /// <summary>Records <paramref name="value"/>, converted to <see cref="double"/>, in the series named by <paramref name="tags"/>, creating it on first use.</summary>
    /// <param name="value">The value.</param>
    /// <param name="tags">The series' tags, in any order; see <see cref="TagSet.Create"/> for the rules.</param>
    /// <exception cref="ArgumentException">A tag key is null, empty, repeated, reserved or too long, two keys export as one label name, a tag value is null, of an unsupported type or too long, or there are too many tags (see <see cref="MetricRegistryOptions"/>); nothing is recorded.</exception>
    public void Record(long value, params ReadOnlySpan<KeyValuePair<string, object?>> tags) => Table.GetOrAdd(tags).RecordValid(value);

    /// <summary>Sums every series' partitions: bucket counts and sums; and reads each bucket's newest exemplar (<see cref="HistogramReading.Exemplars"/>).</summary>
    /// <returns>One reading per series, in no particular order; a series with no record yet reads all zeros.</returns>
    /// <remarks>One pass over the series' slots, region by region; serialized with every other read of the registry's series.</remarks>
    public IReadOnlyList<HistogramReading> Collect() =>
        SnapshotReadings.Of(this, (snapshot, i) => new HistogramReading(
            snapshot.TagsAt(i),
            Buckets.Boundaries,
            snapshot.BucketCountsAt(i).ToArray(),
            snapshot.SumAt(i),
            snapshot.BucketExemplarsAt(i) is { Count: > 0 } exemplars ? exemplars.ToArray() : null));

    /// <inheritdoc/>
    /// <remarks>Each bucket's newest exemplar first, where the series keep them (so that every
    /// exemplar's record is in the counts read after it), then one pass over the arena.</remarks>
    internal override void ReadInto(InstrumentSnapshot snapshot, bool collection)
    {
        ArraySegment<HistogramSeries> series = Table.BeginRead(out long read, collection);
        snapshot.BeginSeries(series, HistogramSeries.SlotCountFor(Buckets), doubles: true);
        snapshot.SetBucketCount(Buckets.BucketCount);
        if (collection)
        {
            snapshot.ReadExemplars<HistogramSeries>(series, Buckets.BucketCount);
        }

        HistogramSeries.ReadAllInto(Arena, series, Buckets, snapshot, collection);
        Table.EndRead(read, snapshot, IdleCollections);
    }

    /// <summary>Whether any series keeps exemplars (the registry's <see cref="MetricRegistryOptions.ExemplarFilter"/> is on).</summary>
    internal bool KeepsExemplars
    {
        get
        {
            ReadOnlySpan<HistogramSeries> series = Table.Series;
            return !series.IsEmpty && series[0].Exemplars is not null;
        }
    }

    /// <inheritdoc/>
    internal override void Accept(IInstrumentSink sink) => sink.Histogram(this);
}
