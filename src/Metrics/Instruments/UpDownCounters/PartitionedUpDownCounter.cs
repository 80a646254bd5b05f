using System.Runtime.CompilerServices;
using ScalableMetrics.Cells;
using ScalableMetrics.Instruments;
using ScalableMetrics.Snapshots;
using ScalableMetrics.Tags;

namespace ScalableMetrics;

/// <summary>
/// A counter of <see cref="long"/> values that goes up and down (in-flight requests, queue
/// length), partitioned as a <see cref="PartitionedCounter"/> is: adds of either sign land in the
/// calling partition's slot, summed only when collected.
/// </summary>
/// <remarks>
/// <para>Create one with <see cref="MetricRegistry.CreateUpDownCounter"/>. All members are thread-safe.</para>
/// <para>For the hot path, <see cref="SeriesInstrument{TSeries}.Bind">Bind</see> a fixed tag set once and add to the returned
/// <see cref="UpDownCounterSeries"/>: that does no lookup. <see cref="Add(long, ReadOnlySpan{KeyValuePair{string, object}})"/>
/// with tags looks the series up on every call (without allocating, once the series exists).</para>
/// <para>Each partition's slot wraps, so the total is exact whenever it fits a <see cref="long"/>
/// (see <see cref="UpDownCounterSeries"/>). No monotonic promise: a total may go down between two
/// collections. Exported as a Prometheus gauge <c>B</c>.</para>
/// </remarks>
public sealed class PartitionedUpDownCounter : SeriesInstrument<UpDownCounterSeries>
{
    internal PartitionedUpDownCounter(string name, string? unit, string? description, PartitionArena arena, int maxSeries, TagLimits tagLimits)
        : base(name, unit, description, arena, maxSeries, tagLimits, tags => new UpDownCounterSeries(tags, arena))
    {
    }

    /// <summary>Adds <paramref name="value"/> to the series without tags.</summary>
    /// <param name="value">The change, of either sign.</param>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public void Add(long value)
    {
        Table.GetOrAdd([]).Add(value);
    }

    /// <summary>Adds <paramref name="value"/> to the series named by <paramref name="tags"/>, creating it on first use.</summary>
    /// <param name="value">The change, of either sign.</param>
    /// <param name="tags">The series' tags, in any order; see <see cref="TagSet.Create"/> for the rules.</param>
    /// <exception cref="ArgumentException">A tag key is null, empty, repeated, reserved or too long, two keys export as one label name, a tag value is null, of an unsupported type or too long, or there are too many tags (see <see cref="MetricRegistryOptions"/>); nothing is recorded.</exception>
    public void Add(long value, params ReadOnlySpan<KeyValuePair<string, object?>> tags)
    {
        Table.GetOrAdd(tags).Add(value);
    }

    /// <summary>Sums every series' partitions.</summary>
    /// <returns>One reading per series, in no particular order: the series' total since it was created.</returns>
    /// <remarks>Region by region, vectorized, over the series' slots; serialized with every other read of the registry's series.</remarks>
    public IReadOnlyList<LongReading> Collect() => SnapshotReadings.Longs(this);

    /// <inheritdoc/>
    internal override void ReadInto(InstrumentSnapshot snapshot) => Table.ReadTotalsInto(Arena, snapshot, SlotSum.Wrapping, IdleCollections);

    /// <inheritdoc/>
    internal override void Accept(IInstrumentSink sink) => sink.UpDownCounter(this);
}
