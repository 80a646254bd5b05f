using System.Runtime.CompilerServices;
using ScalableMetrics.Cells;
using ScalableMetrics.Instruments;
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
/// <para>For the hot path, <see cref="SeriesInstrument{TSeries}.Bind">Bind</see> a fixed tag set once and add to the returned
/// <see cref="CounterSeries"/>: that does no lookup. <see cref="Add(long, ReadOnlySpan{KeyValuePair{string, object}})"/>
/// with tags looks the series up on every call (without allocating, once the series exists).</para>
/// <para>Exported cumulatively: a collected value is the total since the counter was created,
/// and never goes down between two collections.</para>
/// </remarks>
public sealed class PartitionedCounter : SeriesInstrument<CounterSeries>
{
    internal PartitionedCounter(string name, string? unit, string? description, PartitionArena arena, int maxSeries, TagLimits tagLimits, ExemplarFilter exemplarFilter = ExemplarFilter.None)
        : base(name, unit, description, arena, maxSeries, tagLimits, tags => new CounterSeries(tags, arena, exemplarFilter))
    {
    }

    /// <summary>Adds <paramref name="value"/> to the series without tags.</summary>
    /// <param name="value">The increment, zero or positive.</param>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="value"/> is negative; nothing is recorded.</exception>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public void Add(long value) => AddToSeries(value, []);

    /// <summary>Adds <paramref name="value"/> to the series named by <paramref name="tags"/>, creating it on first use.</summary>
    /// <param name="value">The increment, zero or positive.</param>
    /// <param name="tags">The series' tags, in any order; see <see cref="TagSet.Create"/> for the rules.</param>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="value"/> is negative; nothing is recorded.</exception>
    /// <exception cref="ArgumentException">A tag key is null, empty, repeated, reserved or too long, two keys export as one label name, a tag value is null, of an unsupported type or too long, or there are too many tags (see <see cref="MetricRegistryOptions"/>); nothing is recorded.</exception>
    public void Add(long value, params ReadOnlySpan<KeyValuePair<string, object?>> tags) => AddToSeries(value, tags);

    // Both adds: the value is checked before the lookup, so that a refused one creates no series.
    // Inlined into each, so that the add without tags stays inline at its caller (the untagged
    // series is a field the lookup reads).
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private void AddToSeries(long value, ReadOnlySpan<KeyValuePair<string, object?>> tags)
    {
        if (value < 0)
        {
            ThrowHelper.ThrowNegativeIncrement(nameof(value), value);
        }

        Table.GetOrAdd(tags).AddValid(value);
    }

    /// <summary>Sums every series' partitions, and reads each series' newest exemplar (<see cref="CounterReading.Exemplar"/>).</summary>
    /// <returns>One reading per series, in no particular order; each value at most <see cref="long.MaxValue"/> and never lower than an earlier read of the series returned.</returns>
    /// <remarks>Region by region, vectorized, over the series' slots; serialized with every other read of the registry's series.</remarks>
    public IReadOnlyList<CounterReading> Collect() =>
        SnapshotReadings.Of(this, static (snapshot, i) => new CounterReading(snapshot.TagsAt(i), snapshot.LongValues[i]) { Exemplar = snapshot.ExemplarAt(i) });

    /// <inheritdoc/>
    internal override void ReadInto(InstrumentSnapshot snapshot) => Table.ReadTotalsInto(Arena, snapshot, SlotSum.Saturating, IdleCollections);

    /// <inheritdoc/>
    internal override void Accept(IInstrumentSink sink) => sink.Counter(this);
}
