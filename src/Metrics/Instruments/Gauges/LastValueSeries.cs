using System.Runtime.CompilerServices;
using ScalableMetrics.SeriesTables;
using ScalableMetrics.Snapshots;

namespace ScalableMetrics;

/// <summary>
/// One series of a gauge, bound to a fixed tag set: the last value set, or none before the first
/// set. One cell, not partitioned: a gauge is set, not added to, so there is nothing to sum, and
/// the last writer wins whatever processor it runs on. Written once for <see cref="GaugeSeries"/>
/// (<see cref="long"/>) and <see cref="DoubleGaugeSeries"/> (<see cref="double"/>).
/// </summary>
/// <remarks>
/// <para>Thread-safe: a set is one plain 8-byte store, never torn, whichever the type (the value
/// is kept as its 8 bytes). Only this library derives from it.</para>
/// <para>Instantiated over a value type only, so each of its methods is compiled for its own
/// <typeparamref name="TValue"/>: a set shares no generic code with the other type's.</para>
/// </remarks>
/// <typeparam name="TValue"><see cref="long"/> or <see cref="double"/>: 8 bytes.</typeparam>
public abstract class LastValueSeries<TValue> : Series
    where TValue : unmanaged
{
    private long _bits;

    // 0 until the first set, then 1: a series bound but never set is not exported. Written after
    // _bits and read before it, so a reader that sees it set reads a value that was set.
    private int _isSet;

    private protected LastValueSeries(TagSet tags)
        : base(tags)
    {
    }

    /// <summary>Sets the series' value, replacing the last one.</summary>
    /// <param name="value">The value: any <see cref="long"/>; any <see cref="double"/>, NaN and infinities too, exported as Prometheus writes them (<c>NaN</c>, <c>+Inf</c>, <c>-Inf</c>), as a gauge holds a snapshot and the next set replaces it.</param>
    public void Set(TValue value)
    {
        Volatile.Write(ref _bits, Unsafe.BitCast<TValue, long>(value));
        if (_isSet == 0)
        {
            Volatile.Write(ref _isSet, 1);
        }
    }

    /// <summary>The last value set, or <see langword="null"/> before the first <see cref="Set"/>.</summary>
    /// <returns>The value; with concurrent sets, one of theirs.</returns>
    public TValue? Read() => Volatile.Read(ref _isSet) != 0 ? Unsafe.BitCast<long, TValue>(Volatile.Read(ref _bits)) : null;

    /// <summary>
    /// Reads the series of <paramref name="table"/> set at least once (each its last value), in
    /// creation order, into <paramref name="snapshot"/>, as one collection of the table: a
    /// <see cref="long"/> each, or a <see cref="double"/> each where <typeparamref name="TValue"/>
    /// is <see cref="double"/>. A gauge's read.
    /// </summary>
    /// <typeparam name="TSeries">The series type.</typeparam>
    /// <param name="table">The gauge's series.</param>
    /// <param name="snapshot">The reader's columns.</param>
    /// <param name="idleCollections">The gauge's idle expiry (<see cref="Instrument.IdleCollections"/>).</param>
    internal static void ReadInto<TSeries>(SeriesTable<TSeries> table, InstrumentSnapshot snapshot, int idleCollections)
        where TSeries : LastValueSeries<TValue>
    {
        ArraySegment<TSeries> series = table.BeginRead(out long read);
        ReadValuesInto<TSeries>(series, snapshot);
        table.EndRead(read, snapshot, idleCollections);
    }

    // The series set at least once, each its last value.
    private static void ReadValuesInto<TSeries>(ReadOnlySpan<TSeries> series, InstrumentSnapshot snapshot)
        where TSeries : LastValueSeries<TValue>
    {
        // Folded by the JIT: TValue is a value type, so each instantiation is compiled for it.
        bool doubles = typeof(TValue) == typeof(double);
        snapshot.BeginOwnSeries(series.Length, longStride: doubles ? 0 : 1, doubles);
        foreach (TSeries one in series)
        {
            if (one.Read() is not { } value)
            {
                continue;
            }

            int at = snapshot.AddSeries(one);
            if (doubles)
            {
                snapshot.Doubles()[at] = Unsafe.BitCast<TValue, double>(value);
            }
            else
            {
                snapshot.Longs()[at] = Unsafe.BitCast<TValue, long>(value);
            }
        }
    }
}
