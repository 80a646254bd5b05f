using System.Diagnostics;
using ScalableMetrics.Cells;
using ScalableMetrics.Instruments;
using ScalableMetrics.Recording;
using ScalableMetrics.SeriesTables;
using ScalableMetrics.Tags;

namespace ScalableMetrics;

/// <summary>
/// An instrument whose series (one per distinct tag set) are objects of type
/// <typeparamref name="TSeries"/> that a caller may bind, record into without a lookup, and
/// remove: what the counters, up-down counters, gauges, histograms and operation data do alike,
/// written once. Each kind derives from it as a sealed type that adds its own add, set or
/// record, its validation and its read.
/// </summary>
/// <remarks>
/// <para>All members are thread-safe. Only this library derives from it.</para>
/// <para>A record through the derived type (<c>Add</c>, <c>Set</c>, <c>Record</c>) is a method of
/// that sealed type, compiled for its exact series type; only the members here, off the hot path,
/// are shared by the kinds.</para>
/// </remarks>
/// <typeparam name="TSeries">The instrument's bound series: <see cref="CounterSeries"/>, <see cref="GaugeSeries"/>, <see cref="HistogramSeries"/> and the like.</typeparam>
public abstract class SeriesInstrument<TSeries> : Instrument
    where TSeries : Series
{
    private readonly PartitionArena? _arena;

    /// <summary>An instrument whose series keep their values in themselves (the gauges).</summary>
    private protected SeriesInstrument(string name, string? unit, string? description, int maxSeries, TagLimits tagLimits, Func<TagSet, TSeries> createSeries)
        : base(name, unit, description)
    {
        Table = new SeriesTable<TSeries>(maxSeries, tagLimits, createSeries);
    }

    /// <summary>An instrument whose series are partitioned, their slots in <paramref name="arena"/> (<see cref="Arena"/>).</summary>
    private protected SeriesInstrument(string name, string? unit, string? description, PartitionArena arena, int maxSeries, TagLimits tagLimits, Func<TagSet, TSeries> createSeries)
        : this(name, unit, description, maxSeries, tagLimits, createSeries)
    {
        _arena = arena;
    }

    /// <inheritdoc/>
    public override int SeriesCount => Table.Count;

    /// <inheritdoc/>
    /// <remarks>From the table: a removal frees a place under the limit, and the overflow series stays.</remarks>
    internal override bool HasOverflowSeries => Table.HasOverflowSeries;

    /// <inheritdoc/>
    internal override (int Retired, long Reclaimed, long LateAdds) Removals => Table.Removals;

    /// <summary>The instrument's series, found or created by their tags.</summary>
    private protected SeriesTable<TSeries> Table { get; }

    /// <summary>The arena a partitioned instrument's series keep their slots in, which its collection reads.</summary>
    private protected PartitionArena Arena
    {
        get
        {
            Debug.Assert(_arena is not null, "only an instrument created with an arena reads one");
            return _arena;
        }
    }

    /// <summary>Returns the series named by <paramref name="tags"/>, created on first use, to record into without a lookup.</summary>
    /// <param name="tags">The series' tags, in any order; none binds the series without tags.</param>
    /// <returns>The bound series; binding the same tags again returns the same object.</returns>
    /// <remarks>Thread-safe. A bound series never expires (<see cref="MetricRegistryOptions.RemoveSeriesIdleForCollections"/>),
    /// and binding a series marked for removal (by <see cref="Remove(ReadOnlySpan{KeyValuePair{string, object}})"/> or idle expiry)
    /// before the collection that would remove it takes the removal back, so that what the handle adds is exported.</remarks>
    /// <exception cref="ArgumentException">A tag key is null, empty, repeated, reserved or too long, two keys export as one label name, a tag value is null, of an unsupported type or too long, or there are too many tags (see <see cref="MetricRegistryOptions"/>).</exception>
    public TSeries Bind(params ReadOnlySpan<KeyValuePair<string, object?>> tags) => Table.Bind(tags);

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
    /// not exported (<c>scalablemetrics_removed_series_late_adds_total</c>; for a gauge, 1 where
    /// sets after the last export left the series with another value than the export's).</remarks>
    /// <exception cref="ArgumentException">The tags break the rules of <see cref="TagSet.Create"/> (see <see cref="MetricRegistryOptions"/>); nothing is removed.</exception>
    public bool Remove(params ReadOnlySpan<KeyValuePair<string, object?>> tags) => Table.Remove(tags);

    /// <summary>Removes <paramref name="series"/>, a series of this instrument, as <see cref="Remove(ReadOnlySpan{KeyValuePair{string, object}})"/> does.</summary>
    /// <param name="series">A series <see cref="Bind"/> returned.</param>
    /// <returns><see langword="true"/> where it was removed; <see langword="false"/> where it is not this
    /// instrument's, is the overflow series, or was removed already.</returns>
    /// <remarks>Thread-safe. The handle stays usable: its adds after the series' last export are counted, not exported.</remarks>
    /// <exception cref="ArgumentNullException"><paramref name="series"/> is null.</exception>
    public bool Remove(TSeries series)
    {
        ArgumentNullException.ThrowIfNull(series);
        return Table.Remove(series);
    }

    /// <summary>A recorder into this instrument's series for a source that adds <paramref name="sourceTags"/> to every measurement's tags: the listener's way in.</summary>
    /// <param name="sourceTags">The source's tags (a listened instrument's and its meter's), with distinct keys.</param>
    internal SeriesRecorder<TSeries> CreateRecorder(KeyValuePair<string, object?>[] sourceTags) => new(Table, sourceTags);
}
