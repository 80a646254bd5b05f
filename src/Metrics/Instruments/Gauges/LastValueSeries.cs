using System.Runtime.CompilerServices;
using ScalableMetrics.SeriesTables;
using ScalableMetrics.Snapshots;

namespace ScalableMetrics.Instruments.Gauges;

/// <summary>
/// A gauge's series: its last value set, if any. Implemented by <see cref="GaugeSeries"/> and
/// <see cref="DoubleGaugeSeries"/> (by their public <c>Read</c>), so that <see cref="Gauge"/> and
/// <see cref="DoubleGauge"/> read their series with one <see cref="ReadInto"/>.
/// </summary>
/// <typeparam name="TValue"><see cref="long"/> or <see cref="double"/>.</typeparam>
internal interface ILastValueSeries<TValue>
    where TValue : unmanaged
{
    /// <summary>The last value set, or <see langword="null"/> before the first set.</summary>
    /// <returns>The value; with concurrent sets, one of theirs.</returns>
    TValue? Read();

    /// <summary>
    /// Reads the series of <paramref name="table"/> set at least once (each its last value), in
    /// creation order, into <paramref name="snapshot"/>, as one collection of the table: a
    /// <see cref="long"/> each, or a <see cref="double"/> each where <typeparamref name="TValue"/>
    /// is <see cref="double"/>.
    /// </summary>
    /// <typeparam name="TSeries">The series type.</typeparam>
    /// <param name="table">The gauge's series.</param>
    /// <param name="snapshot">The reader's columns.</param>
    /// <param name="idleCollections">The gauge's idle expiry (<see cref="Instrument.IdleCollections"/>).</param>
    static void ReadInto<TSeries>(SeriesTable<TSeries> table, InstrumentSnapshot snapshot, int idleCollections)
        where TSeries : Series, ILastValueSeries<TValue>
    {
        ArraySegment<TSeries> series = table.BeginRead(out long read);
        ReadValuesInto<TSeries>(series, snapshot);
        table.EndRead(read, snapshot, idleCollections);
    }

    // The series set at least once, each its last value.
    private static void ReadValuesInto<TSeries>(ReadOnlySpan<TSeries> series, InstrumentSnapshot snapshot)
        where TSeries : Series, ILastValueSeries<TValue>
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
