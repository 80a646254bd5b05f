using System.Collections.ObjectModel;
using System.Runtime.CompilerServices;
using ScalableMetrics.Cells;
using ScalableMetrics.Instruments;
using ScalableMetrics.Instruments.Histograms;
using ScalableMetrics.Recording;
using ScalableMetrics.SeriesTables;
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
public sealed class PartitionedHistogram : Instrument
{
    private readonly SeriesTable<HistogramSeries> _series;
    private readonly PartitionArena _arena;

    internal PartitionedHistogram(string name, string? unit, string? description, HistogramBuckets buckets, PartitionArena arena, int maxSeries, TagLimits tagLimits, ExemplarFilter exemplarFilter = ExemplarFilter.None)
        : base(name, unit, description)
    {
        _arena = arena;
        Buckets = buckets;
        _series = new SeriesTable<HistogramSeries>(maxSeries, tagLimits, tags => new HistogramSeries(tags, arena, buckets, exemplarFilter));
    }

    /// <summary>
    /// OpenTelemetry's default explicit bucket boundaries (specification, SDK, "Explicit Bucket
    /// Histogram Aggregation"): <c>[0, 5, 10, 25, 50, 75, 100, 250, 500, 750, 1000, 2500, 5000, 7500, 10000]</c>,
    /// what a histogram created without boundaries gets.
    /// </summary>
    public static IReadOnlyList<double> DefaultBoundaries { get; } = new ReadOnlyCollection<double>([0, 5, 10, 25, 50, 75, 100, 250, 500, 750, 1000, 2500, 5000, 7500, 10000]);

    /// <summary>The bucket boundaries, strictly increasing and finite: one fewer than the buckets.</summary>
    public IReadOnlyList<double> Boundaries => Buckets.Boundaries;

    /// <inheritdoc/>
    public override int SeriesCount => _series.Count;

    /// <inheritdoc/>
    internal override (int Retired, long Reclaimed, long LateAdds) Removals => _series.Removals;

    /// <summary>A recorder into this instrument's series for a source that adds <paramref name="sourceTags"/> to every measurement's tags: the listener's way in.</summary>
    /// <param name="sourceTags">The source's tags (a listened instrument's and its meter's), with distinct keys.</param>
    internal SeriesRecorder<HistogramSeries> CreateRecorder(KeyValuePair<string, object?>[] sourceTags) => new(_series, sourceTags);

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

        _series.GetOrAdd([]).RecordValid(value);
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

        _series.GetOrAdd(tags).RecordValid(value);
    }

    /// <summary>Records <paramref name="value"/>, converted to <see cref="double"/>, in the series without tags.</summary>
    /// <param name="value">The value.</param>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public void Record(long value) => _series.GetOrAdd([]).RecordValid(value);

    /// <summary>Records <paramref name="value"/>, converted to <see cref="double"/>, in the series named by <paramref name="tags"/>, creating it on first use.</summary>
    /// <param name="value">The value.</param>
    /// <param name="tags">The series' tags, in any order; see <see cref="TagSet.Create"/> for the rules.</param>
    /// <exception cref="ArgumentException">A tag key is null, empty, repeated, reserved or too long, two keys export as one label name, a tag value is null, of an unsupported type or too long, or there are too many tags (see <see cref="MetricRegistryOptions"/>); nothing is recorded.</exception>
    public void Record(long value, params ReadOnlySpan<KeyValuePair<string, object?>> tags) => _series.GetOrAdd(tags).RecordValid(value);

    /// <summary>Returns the series named by <paramref name="tags"/>, created on first use, to record into without a lookup.</summary>
    /// <param name="tags">The series' tags, in any order; none binds the series without tags.</param>
    /// <returns>The bound series; binding the same tags again returns the same object.</returns>
    /// <exception cref="ArgumentException">A tag key is null, empty, repeated, reserved or too long, two keys export as one label name, a tag value is null, of an unsupported type or too long, or there are too many tags (see <see cref="MetricRegistryOptions"/>).</exception>
    public HistogramSeries Bind(params ReadOnlySpan<KeyValuePair<string, object?>> tags) => _series.Bind(tags);

    /// <summary>
    /// Removes the series named by <paramref name="tags"/> (as <see cref="Bind"/> names it: these
    /// tags, in any order, or tags that export alike): the instrument's next collection exports it
    /// a last time, then it is gone, its place under the series limit free and its memory returned
    /// for reuse once nothing holds it. A later record with these tags starts a new series, from
    /// zero, with a start time of its own. See docs/series-lifecycle.md.
    /// </summary>
    /// <param name="tags">The series' tags, in any order; none names the series without tags.</param>
    /// <returns><see langword="true"/> where a series was removed; <see langword="false"/> where none
    /// has these tags, for the overflow series, and for a series removed already.</returns>
    /// <remarks>Thread-safe. A record racing the removal is in the series' last export, or in the new
    /// series; an add through a bound handle of the removed series after its last export is counted,
    /// not exported (<c>scalablemetrics_removed_series_late_adds_total</c>).</remarks>
    /// <exception cref="ArgumentException">The tags break the rules of <see cref="TagSet.Create"/> (see <see cref="MetricRegistryOptions"/>); nothing is removed.</exception>
    public bool Remove(params ReadOnlySpan<KeyValuePair<string, object?>> tags) => _series.Remove(tags);

    /// <summary>Removes <paramref name="series"/>, a series of this instrument, as <see cref="Remove(ReadOnlySpan{KeyValuePair{string, object}})"/> does.</summary>
    /// <param name="series">A series <see cref="Bind"/> returned.</param>
    /// <returns><see langword="true"/> where it was removed; <see langword="false"/> where it is not this
    /// instrument's, is the overflow series, or was removed already.</returns>
    /// <remarks>Thread-safe. The handle stays usable: its adds after the series' last export are counted, not exported.</remarks>
    /// <exception cref="ArgumentNullException"><paramref name="series"/> is null.</exception>
    public bool Remove(HistogramSeries series) => _series.RemoveBound(series);

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
    internal override void ReadInto(InstrumentSnapshot snapshot)
    {
        ArraySegment<HistogramSeries> series = _series.BeginRead(out long read);
        snapshot.BeginSeries(series, HistogramSeries.SlotCountFor(Buckets), doubles: true);
        snapshot.SetBucketCount(Buckets.BucketCount);
        snapshot.ReadExemplars<HistogramSeries>(series, Buckets.BucketCount);
        HistogramSeries.ReadAllInto(_arena, series, Buckets, snapshot);
        _series.EndRead(read, snapshot, IdleCollections);
    }

    /// <summary>Whether any series keeps exemplars (the registry's <see cref="MetricRegistryOptions.ExemplarFilter"/> is on).</summary>
    internal bool KeepsExemplars
    {
        get
        {
            ReadOnlySpan<HistogramSeries> series = _series.Series;
            return !series.IsEmpty && series[0].Exemplars is not null;
        }
    }

    /// <inheritdoc/>
    internal override void Accept(IInstrumentSink sink) => sink.Histogram(this);
}
