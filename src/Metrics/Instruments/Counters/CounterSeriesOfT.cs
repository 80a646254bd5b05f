using System.Diagnostics;
using System.Runtime.CompilerServices;
using ScalableMetrics.Cells;
using ScalableMetrics.Instruments;

namespace ScalableMetrics;

/// <summary>
/// One series of a counter, bound to a fixed tag set: the handle for the hot path, where an add
/// allocates nothing and is, by the registry's <see cref="Diagnostics.WritePath"/>, a plain add to
/// the current processor's slot inside a restartable sequence (no atomic instruction), a cached
/// processor-id read and one atomic add to that processor's slot, or a plain store to the thread's
/// own slot. Written once for <see cref="CounterSeries"/> (<see cref="long"/>, saturating at
/// <see cref="long.MaxValue"/>) and <see cref="DoubleCounterSeries"/> (<see cref="double"/>).
/// </summary>
/// <remarks>
/// <para>Thread-safe. Get one from the counter's <see cref="SeriesInstrument{TSeries}.Bind">Bind</see>, once, and keep it.
/// Only this library derives from it.</para>
/// <para>Instantiated over a value type only, so each of its methods is compiled for its own
/// <typeparamref name="TValue"/>: the tests of <c>typeof(TValue)</c> are constants the JIT folds,
/// and an add runs the instructions of its type alone (after the runtime's
/// <c>Vector&lt;T&gt;</c>, which specializes the same way).</para>
/// <para>With <see cref="MetricRegistryOptions.ExemplarFilter"/> on, an add the filter samples is
/// also kept as the calling partition's <see cref="Exemplar"/>, after the add; off, an add runs the
/// same instructions as in a registry without exemplars (see <see cref="ExemplarFilter.None"/>).</para>
/// </remarks>
/// <typeparam name="TValue"><see cref="long"/> or <see cref="double"/>.</typeparam>
public abstract class CounterSeries<TValue> : PartitionedSeries
    where TValue : unmanaged
{
    /// <summary>The slots a counter series takes in each region: its total.</summary>
    internal const int SlotCount = 1;

    /// <inheritdoc/>
    private protected override bool HoldsDouble => typeof(TValue) == typeof(double);

    private protected CounterSeries(TagSet tags, PartitionArena arena, ExemplarFilter exemplarFilter)
        : base(tags, arena, SlotCount, exemplarFilter, SlotCount)
    {
        Debug.Assert(typeof(TValue) == typeof(long) || typeof(TValue) == typeof(double), "a counter counts longs or doubles");
    }

    /// <summary>Adds <paramref name="value"/>.</summary>
    /// <param name="value">The increment: zero or positive, and for a <see cref="double"/> finite.</param>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="value"/> is negative, NaN or infinite; nothing is recorded.</exception>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public void Add(TValue value)
    {
        CheckIncrement(value, nameof(value));
        AddValid(value);
    }

    /// <summary>Sums the series' partitions: the total added since it was created.</summary>
    /// <returns>The cumulative value, never lower than a value an earlier call returned: for a
    /// <see cref="long"/> at most <see cref="long.MaxValue"/>; for a <see cref="double"/> at most
    /// <see cref="double.MaxValue"/> (increments past it saturate there), a sum of doubles subject
    /// to floating-point rounding as any is.</returns>
    public TValue Read() =>
        typeof(TValue) == typeof(long)
            ? Unsafe.BitCast<long, TValue>(ReadSlot(0))
            : Unsafe.BitCast<double, TValue>(SaturateTotal(ReadSlotDouble(0)));

    /// <summary>Refuses an increment a counter cannot take: a negative one, and for a <see cref="double"/> NaN and the infinities.</summary>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="value"/> is refused, named <paramref name="paramName"/>.</exception>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    internal static void CheckIncrement(TValue value, string paramName)
    {
        if (typeof(TValue) == typeof(long))
        {
            long increment = Unsafe.BitCast<TValue, long>(value);
            if (increment < 0)
            {
                ThrowHelper.ThrowNegativeIncrement(paramName, increment);
            }
        }
        else
        {
            // One comparison pair refuses NaN (every comparison with it is false), negatives and +∞.
            double increment = Unsafe.BitCast<TValue, double>(value);
            if (!(increment >= 0 && increment < double.PositiveInfinity))
            {
                ThrowHelper.ThrowBadDoubleIncrement(paramName, increment);
            }
        }
    }

    /// <summary>Adds <paramref name="value"/>, known to pass <see cref="CheckIncrement"/>.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    internal void AddValid(TValue value)
    {
        if (typeof(TValue) == typeof(long))
        {
            Add<SaturatingCell, long>(0, Unsafe.BitCast<TValue, long>(value));
        }
        else
        {
            Add<DoubleCell, double>(0, Unsafe.BitCast<TValue, double>(value));
        }
    }

    /// <summary>The newest exemplar kept, or null where none was (or the registry keeps none).</summary>
    internal Exemplar? ReadExemplar() => Exemplars?.ReadNewest(0);
}
