using System.Diagnostics;
using System.Runtime.CompilerServices;
using ScalableMetrics.Cells;
using ScalableMetrics.Instruments;

namespace ScalableMetrics;

/// <summary>
/// One series of an up-down counter, bound to a fixed tag set: adds of either sign without a
/// lookup and without allocating, each to the calling partition's slot. Written once for
/// <see cref="UpDownCounterSeries"/> (<see cref="long"/>) and <see cref="DoubleUpDownCounterSeries"/>
/// (<see cref="double"/>).
/// </summary>
/// <remarks>
/// <para>Thread-safe. Get one from the up-down counter's <see cref="SeriesInstrument{TSeries}.Bind">Bind</see>, once, and keep it.
/// Only this library derives from it.</para>
/// <para>A <see cref="long"/> partition's slot wraps (two's complement), so a partition may hold
/// any value (one thread increments, another decrements): the wrapping sum of the partitions is
/// the exact total whenever the total fits a <see cref="long"/>, and wraps only if the total itself
/// leaves it. <see cref="double"/> partitions are summed as doubles at a read, so the total is
/// subject to floating-point rounding as any sum of doubles is.</para>
/// <para>Instantiated over a value type only, so each of its methods is compiled for its own
/// <typeparamref name="TValue"/> (see <see cref="CounterSeries{TValue}"/>).</para>
/// </remarks>
/// <typeparam name="TValue"><see cref="long"/> or <see cref="double"/>.</typeparam>
public abstract class UpDownCounterSeries<TValue> : PartitionedSeries
    where TValue : unmanaged
{
    /// <summary>The slots an up-down counter series takes in each region: its total.</summary>
    internal const int SlotCount = 1;

    /// <inheritdoc/>
    private protected override bool HoldsDouble => typeof(TValue) == typeof(double);

    /// <inheritdoc/>
    private protected override bool WrapsSlots => true;

    private protected UpDownCounterSeries(TagSet tags, PartitionArena arena)
        : base(tags, arena, SlotCount)
    {
        Debug.Assert(typeof(TValue) == typeof(long) || typeof(TValue) == typeof(double), "an up-down counter counts longs or doubles");
    }

    /// <summary>Adds <paramref name="value"/>, of either sign.</summary>
    /// <param name="value">The change; for a <see cref="double"/>, finite.</param>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="value"/> is NaN or infinite; nothing is recorded.</exception>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public void Add(TValue value)
    {
        CheckChange(value, nameof(value));
        AddValid(value);
    }

    /// <summary>Sums the series' partitions: the total added since it was created.</summary>
    /// <returns>The total: for a <see cref="long"/>, wrapped only if it left <see cref="long"/>; for a
    /// <see cref="double"/>, within ±<see cref="double.MaxValue"/> (finite changes past it saturate there, in each partition, so that partitions
    /// past it in opposite directions read as finite, never NaN).</returns>
    public TValue Read() =>
        typeof(TValue) == typeof(long)
            ? Unsafe.BitCast<long, TValue>(ReadSlotWrapping(0))
            : Unsafe.BitCast<double, TValue>(SaturateTotal(ReadSlotDouble(0, saturateEach: true)));

    /// <summary>Refuses a change an up-down counter cannot take: for a <see cref="double"/>, NaN and the infinities.</summary>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="value"/> is refused, named <paramref name="paramName"/>.</exception>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    internal static void CheckChange(TValue value, string paramName)
    {
        if (typeof(TValue) == typeof(double) && !double.IsFinite(Unsafe.BitCast<TValue, double>(value)))
        {
            ThrowHelper.ThrowNotFinite(paramName, Unsafe.BitCast<TValue, double>(value));
        }
    }

    /// <summary>Adds <paramref name="value"/>, known to pass <see cref="CheckChange"/>.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    internal void AddValid(TValue value)
    {
        if (typeof(TValue) == typeof(long))
        {
            Add<WrappingCell, long>(0, Unsafe.BitCast<TValue, long>(value));
        }
        else
        {
            Add<DoubleCell, double>(0, Unsafe.BitCast<TValue, double>(value));
        }
    }
}
