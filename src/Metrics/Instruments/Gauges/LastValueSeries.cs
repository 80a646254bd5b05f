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
/// <para>Removed (<see cref="SeriesInstrument{TSeries}.Remove(TSeries)"/>, idle expiry), the
/// series is exported a last time; a set through a handle kept past that export is not exported,
/// and where it left the series with another value than the export's, it is counted once, when
/// the garbage collector finds the series unreachable, in
/// <c>scalablemetrics_removed_series_late_adds_total</c> (docs/series-lifecycle.md).</para>
/// </remarks>
/// <typeparam name="TValue"><see cref="long"/> or <see cref="double"/>: 8 bytes.</typeparam>
public abstract class LastValueSeries<TValue> : Series
    where TValue : unmanaged
{
    private long _bits;

    // 0 until the first set, then 1: a series bound but never set is not exported. Written after
    // _bits and read before it, so a reader that sees it set reads a value that was set.
    private int _isSet;

    // Null until the series is marked for removal; then what its reads export, and its reclaim.
    // Written once, under the table's lock, before the mark's fence; read by reads, never by a set.
    private LastExport? _lastExport;

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

    /// <inheritdoc/>
    /// <remarks>Before the mark's fence, so that a collection that begins after the mark reads
    /// through its <see cref="LastExport"/> (<see cref="ReadValuesInto{TSeries}"/>).</remarks>
    private protected override void Retire()
    {
        _lastExport = new LastExport(this);
        SetMark();
    }

    /// <inheritdoc/>
    /// <remarks>Reads go back to the series' own value; the last export's, never unlinked, counts nothing when finalized.</remarks>
    private protected override void Unretire() => Volatile.Write(ref _lastExport, null);

    /// <inheritdoc/>
    private protected override void Unlinked(FinalizedRemovals finalized) => _lastExport!.Unlinked(finalized);

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
    /// <param name="collection">Whether the read is a collection; else each series' own value, a
    /// marked one's not kept as its last export's (<see cref="Instrument.ReadInto(InstrumentSnapshot, bool)"/>).</param>
    internal static void ReadInto<TSeries>(SeriesTable<TSeries> table, InstrumentSnapshot snapshot, int idleCollections, bool collection)
        where TSeries : LastValueSeries<TValue>
    {
        ArraySegment<TSeries> series = table.BeginRead(out long read, collection);
        ReadValuesInto<TSeries>(series, snapshot, collection);
        table.EndRead(read, snapshot, idleCollections);
    }

    // The series set at least once, each its last value: as a collection exports it, or its own.
    private static void ReadValuesInto<TSeries>(ReadOnlySpan<TSeries> series, InstrumentSnapshot snapshot, bool collection)
        where TSeries : LastValueSeries<TValue>
    {
        // Folded by the JIT: TValue is a value type, so each instantiation is compiled for it.
        bool doubles = typeof(TValue) == typeof(double);
        snapshot.BeginOwnSeries(series.Length, longStride: doubles ? 0 : 1, doubles);
        foreach (LastValueSeries<TValue> one in series)
        {
            if ((collection ? one.ReadForExport() : one.Read()) is not { } value)
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

    // The value a collection exports: for a series marked for removal, read through its
    // LastExport, which keeps the reading as the last export's. A read that found none looks
    // again after reading: where a mark came meanwhile, the last export and a later set may have
    // come too, and this read, later than the kept one, would export the set beside its count;
    // it reads again through the LastExport instead, and is kept.
    // The field is read once into a local each time: a Bind may take the mark back (Unretire)
    // between two reads of it.
    private TValue? ReadForExport()
    {
        LastExport? lastExport = Volatile.Read(ref _lastExport);
        if (lastExport is null)
        {
            TValue? value = Read();
            lastExport = Volatile.Read(ref _lastExport);
            if (lastExport is null)
            {
                return value;
            }
        }

        return lastExport.ReadExported();
    }

    /// <summary>
    /// A removed gauge series' last export and its reclaim: the value the last collection read
    /// (whether the series was set, and its bits), compared, once the series is unreachable, with
    /// the value it ended with.
    /// </summary>
    /// <remarks>
    /// <para>Exact: every read of a marked series reads and keeps its reading under one lock, so
    /// the reading kept is that of the last read in time, whichever reader made it, and the table
    /// unlinks the series only after a read that began after the mark. A set racing that last read
    /// stores either before the read's load (and the read exports it, or a later set's value) or
    /// after it; once the series is unreachable no set can come, so the value the finalizer reads
    /// is the series' final one: the last export's (nothing lost), or a value set after it (counted
    /// once), never both, never neither. A set after the last export to the exported value loses
    /// nothing: the series' final value was exported.</para>
    /// <para>Why a finalizer here, on an object only a removed series has: the value is a field of
    /// the series object, readable only while the object exists, so the series cannot be watched
    /// through a weak reference as a partitioned series' arena slots are
    /// (<see cref="RetiredSeries"/>). This object refers to the series and the series to it: once
    /// the series is unreachable, so is this object, and its finalization keeps the series'
    /// fields readable until it has read them. A series never removed allocates none, and its
    /// <see cref="Set"/> is unchanged: a plain store and a test.</para>
    /// <para>A finalizer runs on the finalizer thread: it reads two fields and counts with
    /// <see cref="Interlocked"/> (<see cref="FinalizedRemovals"/>), and cannot throw. A series
    /// marked but never unlinked (its table was dropped first) counts nothing.</para>
    /// </remarks>
    private sealed class LastExport(LastValueSeries<TValue> series)
    {
        private readonly LastValueSeries<TValue> _series = series;
        private readonly Lock _lock = new();
        private bool _exportedSet;
        private long _exportedBits;
        private FinalizedRemovals? _finalized;

        ~LastExport()
        {
            if (Volatile.Read(ref _finalized) is { } finalized)
            {
                finalized.CountReclaim(late: WrittenAfterExport(_series.Read()));
            }
        }

        /// <summary>Reads the series' value and keeps it as its last export's.</summary>
        public TValue? ReadExported()
        {
            lock (_lock)
            {
                TValue? value = _series.Read();
                _exportedSet = value.HasValue;
                _exportedBits = value is { } set ? Unsafe.BitCast<TValue, long>(set) : 0;
                return value;
            }
        }

        /// <summary>The series is unlinked: its reclaim will be counted into <paramref name="finalized"/>. Under the table's lock.</summary>
        public void Unlinked(FinalizedRemovals finalized)
        {
            finalized.Unlinked();
            Volatile.Write(ref _finalized, finalized);
        }

        // Whether the final value differs from the last export's: set after an export that found
        // the series unset, or to other bits (a double's NaN to NaN, or 0 to -0, is no change).
        private bool WrittenAfterExport(TValue? final)
        {
            if (final is not { } value)
            {
                return false;
            }

            if (!_exportedSet)
            {
                return true;
            }

            if (typeof(TValue) == typeof(double))
            {
                double now = Unsafe.BitCast<TValue, double>(value);
                double exported = BitConverter.Int64BitsToDouble(_exportedBits);
                return now != exported && !(double.IsNaN(now) && double.IsNaN(exported));
            }

            return Unsafe.BitCast<TValue, long>(value) != _exportedBits;
        }
    }
}
