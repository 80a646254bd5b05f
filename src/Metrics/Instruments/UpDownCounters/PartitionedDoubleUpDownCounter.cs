using System.Runtime.CompilerServices;
using ScalableMetrics.Cells;
using ScalableMetrics.Instruments;
using ScalableMetrics.Snapshots;
using ScalableMetrics.Tags;

namespace ScalableMetrics;

/// <summary>
/// A counter of <see cref="double"/> values that goes up and down, partitioned as a
/// <see cref="PartitionedCounter"/> is: adds of either sign land in the calling partition's slot,
/// summed as doubles only when collected.
/// </summary>
/// <remarks>
/// <para>Create one with <see cref="MetricRegistry.CreateDoubleUpDownCounter"/>. All members are thread-safe.</para>
/// <para>For the hot path, <see cref="SeriesInstrument{TSeries}.Bind">Bind</see> a fixed tag set once and add to the returned
/// <see cref="DoubleUpDownCounterSeries"/>: that does no lookup. <see cref="Add(double, ReadOnlySpan{KeyValuePair{string, object}})"/>
/// with tags looks the series up on every call (without allocating, once the series exists).</para>
/// <para>NaN and infinities are refused: one would make the total NaN or infinite for good. No
/// monotonic promise. Exported as a Prometheus gauge <c>B</c>.</para>
/// </remarks>
public sealed class PartitionedDoubleUpDownCounter : SeriesInstrument<DoubleUpDownCounterSeries>
{
    internal PartitionedDoubleUpDownCounter(string name, string? unit, string? description, PartitionArena arena, int maxSeries, TagLimits tagLimits)
        : base(name, unit, description, arena, maxSeries, tagLimits, tags => new DoubleUpDownCounterSeries(tags, arena))
    {
    }

    /// <summary>Adds <paramref name="value"/> to the series without tags.</summary>
    /// <param name="value">The change, of either sign, finite.</param>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="value"/> is NaN or infinite; nothing is recorded.</exception>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public void Add(double value) => AddToSeries(value, []);

    /// <summary>Adds <paramref name="value"/> to the series named by <paramref name="tags"/>, creating it on first use.</summary>
    /// <param name="value">The change, of either sign, finite.</param>
    /// <param name="tags">The series' tags, in any order; see <see cref="TagSet.Create"/> for the rules.</param>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="value"/> is NaN or infinite; nothing is recorded.</exception>
    /// <exception cref="ArgumentException">A tag key is null, empty, repeated, reserved or too long, two keys export as one label name, a tag value is null, of an unsupported type or too long, or there are too many tags (see <see cref="MetricRegistryOptions"/>); nothing is recorded.</exception>
    public void Add(double value, params ReadOnlySpan<KeyValuePair<string, object?>> tags) => AddToSeries(value, tags);

    // Both adds: the value is checked before the lookup, so that a refused one creates no series.
    // Inlined into each, so that the add without tags stays inline at its caller (the untagged
    // series is a field the lookup reads).
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private void AddToSeries(double value, ReadOnlySpan<KeyValuePair<string, object?>> tags)
    {
        if (!double.IsFinite(value))
        {
            ThrowHelper.ThrowNotFinite(nameof(value), value);
        }

        Table.GetOrAdd(tags).AddValid(value);
    }

    /// <summary>Sums every series' partitions.</summary>
    /// <returns>One reading per series, in no particular order: the series' total since it was created.</returns>
    /// <remarks>Region by region, vectorized, over the series' slots; serialized with every other read of the registry's series.</remarks>
    public IReadOnlyList<DoubleReading> Collect() => SnapshotReadings.Doubles(this);

    /// <inheritdoc/>
    internal override void ReadInto(InstrumentSnapshot snapshot) => Table.ReadTotalsInto(Arena, snapshot, SlotSum.Double, IdleCollections);

    /// <inheritdoc/>
    internal override void Accept(IInstrumentSink sink) => sink.DoubleUpDownCounter(this);
}
