using System.Runtime.CompilerServices;
using ScalableMetrics.Cells;
using ScalableMetrics.Instruments;
using ScalableMetrics.Recording;
using ScalableMetrics.SeriesTables;
using ScalableMetrics.Snapshots;
using ScalableMetrics.Tags;

namespace ScalableMetrics;

/// <summary>
/// A monotonic counter of <see cref="long"/> values whose every series is partitioned (per
/// processor or per thread, see <see cref="PartitionStrategy"/>), so that threads on different
/// cores adding to it do not share a cache line. Values are summed only when collected.
/// </summary>
/// <remarks>
/// <para>Create one with <see cref="MetricRegistry.CreateCounter"/>. All members are thread-safe.</para>
/// <para>For the hot path, <see cref="Bind"/> a fixed tag set once and add to the returned
/// <see cref="CounterSeries"/>: that does no lookup. <see cref="Add(long, ReadOnlySpan{KeyValuePair{string, object}})"/>
/// with tags looks the series up on every call (without allocating, once the series exists).</para>
/// <para>Exported cumulatively: a collected value is the total since the counter was created,
/// and never goes down between two collections.</para>
/// </remarks>
public sealed class PartitionedCounter : Instrument
{
    private readonly SeriesTable<CounterSeries> _series;
    private readonly PartitionArena _arena;

    internal PartitionedCounter(string name, string? unit, string? description, PartitionArena arena, int maxSeries, TagLimits tagLimits, ExemplarFilter exemplarFilter = ExemplarFilter.None)
        : base(name, unit, description)
    {
        _arena = arena;
        _series = new SeriesTable<CounterSeries>(maxSeries, tagLimits, tags => new CounterSeries(tags, arena, exemplarFilter));
    }

    /// <inheritdoc/>
    public override int SeriesCount => _series.Count;

    /// <inheritdoc/>
    internal override (int Retired, long Reclaimed, long LateAdds) Removals => _series.Removals;

    /// <summary>A recorder into this instrument's series for a source that adds <paramref name="sourceTags"/> to every measurement's tags: the listener's way in.</summary>
    /// <param name="sourceTags">The source's tags (a listened instrument's and its meter's), with distinct keys.</param>
    internal SeriesRecorder<CounterSeries> CreateRecorder(KeyValuePair<string, object?>[] sourceTags) => new(_series, sourceTags);

    /// <summary>Adds <paramref name="value"/> to the series without tags.</summary>
    /// <param name="value">The increment, zero or positive.</param>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="value"/> is negative; nothing is recorded.</exception>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public void Add(long value)
    {
        if (value < 0)
        {
            ThrowHelper.ThrowNegativeIncrement(nameof(value), value);
        }

        _series.GetOrAdd([]).AddValid(value);
    }

    /// <summary>Adds <paramref name="value"/> to the series named by <paramref name="tags"/>, creating it on first use.</summary>
    /// <param name="value">The increment, zero or positive.</param>
    /// <param name="tags">The series' tags, in any order; see <see cref="TagSet.Create"/> for the rules.</param>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="value"/> is negative; nothing is recorded.</exception>
    /// <exception cref="ArgumentException">A tag key is null, empty, repeated, reserved or too long, two keys export as one label name, a tag value is null, of an unsupported type or too long, or there are too many tags (see <see cref="MetricRegistryOptions"/>); nothing is recorded.</exception>
    public void Add(long value, params ReadOnlySpan<KeyValuePair<string, object?>> tags)
    {
        if (value < 0)
        {
            ThrowHelper.ThrowNegativeIncrement(nameof(value), value);
        }

        _series.GetOrAdd(tags).AddValid(value);
    }

    /// <summary>Returns the series named by <paramref name="tags"/>, created on first use, to add to without a lookup.</summary>
    /// <param name="tags">The series' tags, in any order; none binds the series without tags.</param>
    /// <returns>The bound series; binding the same tags again returns the same object.</returns>
    /// <exception cref="ArgumentException">A tag key is null, empty, repeated, reserved or too long, two keys export as one label name, a tag value is null, of an unsupported type or too long, or there are too many tags (see <see cref="MetricRegistryOptions"/>).</exception>
    public CounterSeries Bind(params ReadOnlySpan<KeyValuePair<string, object?>> tags) => _series.Bind(tags);

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
    public bool Remove(CounterSeries series) => _series.RemoveBound(series);

    /// <summary>Sums every series' partitions, and reads each series' newest exemplar (<see cref="CounterReading.Exemplar"/>).</summary>
    /// <returns>One reading per series, in no particular order; each value at most <see cref="long.MaxValue"/> and never lower than an earlier read of the series returned.</returns>
    /// <remarks>Region by region, vectorized, over the series' slots; serialized with every other read of the registry's series.</remarks>
    public IReadOnlyList<CounterReading> Collect() =>
        SnapshotReadings.Of(this, static (snapshot, i) => new CounterReading(snapshot.TagsAt(i), snapshot.LongValues[i]) { Exemplar = snapshot.ExemplarAt(i) });

    /// <inheritdoc/>
    internal override void ReadInto(InstrumentSnapshot snapshot) => _series.ReadTotalsInto(_arena, snapshot, SlotSum.Saturating, IdleCollections);

    /// <inheritdoc/>
    internal override void Accept(IInstrumentSink sink) => sink.Counter(this);
}
