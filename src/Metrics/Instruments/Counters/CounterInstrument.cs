using System.Runtime.CompilerServices;
using ScalableMetrics.Cells;
using ScalableMetrics.Instruments;
using ScalableMetrics.Tags;

namespace ScalableMetrics;

/// <summary>
/// A monotonic counter whose every series is partitioned (per processor or per thread, see
/// <see cref="PartitionStrategy"/>), so that threads on different cores adding to it do not share
/// a cache line; values are summed only when collected. Written once for
/// <see cref="PartitionedCounter"/> (<see cref="long"/>) and <see cref="PartitionedDoubleCounter"/>
/// (<see cref="double"/>).
/// </summary>
/// <remarks>
/// <para>All members are thread-safe. Only this library derives from it.</para>
/// <para>For the hot path, <see cref="SeriesInstrument{TSeries}.Bind">Bind</see> a fixed tag set
/// once and add to the returned series: that does no lookup. <see cref="Add(TValue, ReadOnlySpan{KeyValuePair{string, object}})"/>
/// with tags looks the series up on every call (without allocating, once the series exists).</para>
/// <para>Exported cumulatively, as a Prometheus counter <c>B_total</c>: a collected value is the
/// total since the series was created, and never goes down between two collections.</para>
/// <para>Instantiated over a value type, so each add is compiled for its own
/// <typeparamref name="TValue"/> (see <see cref="CounterSeries{TValue}"/>).</para>
/// </remarks>
/// <typeparam name="TValue"><see cref="long"/> or <see cref="double"/>.</typeparam>
/// <typeparam name="TSeries">The counter's bound series: <see cref="CounterSeries"/> or <see cref="DoubleCounterSeries"/>.</typeparam>
public abstract class CounterInstrument<TValue, TSeries> : SeriesInstrument<TSeries>
    where TValue : unmanaged
    where TSeries : CounterSeries<TValue>
{
    private protected CounterInstrument(string name, string? unit, string? description, PartitionArena arena, int maxSeries, TagLimits tagLimits, Func<TagSet, TSeries> createSeries)
        : base(name, unit, description, arena, maxSeries, tagLimits, createSeries)
    {
    }

    /// <summary>Adds <paramref name="value"/> to the series without tags.</summary>
    /// <param name="value">The increment: zero or positive, and for a <see cref="double"/> finite.</param>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="value"/> is negative, NaN or infinite; nothing is recorded.</exception>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public void Add(TValue value) => AddToSeries(value, []);

    /// <summary>Adds <paramref name="value"/> to the series named by <paramref name="tags"/>, creating it on first use.</summary>
    /// <param name="value">The increment: zero or positive, and for a <see cref="double"/> finite.</param>
    /// <param name="tags">The series' tags, in any order; see <see cref="TagSet.Create"/> for the rules.</param>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="value"/> is negative, NaN or infinite; nothing is recorded.</exception>
    /// <exception cref="ArgumentException">A tag key is null, empty, repeated, reserved or too long, two keys export as one label name, a tag value is null, of an unsupported type or too long, or there are too many tags (see <see cref="MetricRegistryOptions"/>); nothing is recorded.</exception>
    public void Add(TValue value, params ReadOnlySpan<KeyValuePair<string, object?>> tags) => AddToSeries(value, tags);

    // Both adds: the value is checked before the lookup, so that a refused one creates no series.
    // Inlined into each, so that the add without tags stays inline at its caller (the untagged
    // series is a field the lookup reads).
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private void AddToSeries(TValue value, ReadOnlySpan<KeyValuePair<string, object?>> tags)
    {
        CounterSeries<TValue>.CheckIncrement(value, nameof(value));
        Table.GetOrAdd(tags).AddValid(value);
    }
}
