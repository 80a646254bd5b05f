using System.Diagnostics.Metrics;

namespace ScalableMetrics.Snapshots;

/// <summary>
/// The public <c>Collect()</c> of every kind: a view over an <see cref="InstrumentSnapshot"/>, one
/// reading per series read, so that <c>Collect()</c> reads exactly what the exporters read.
/// </summary>
/// <remarks>
/// The readings copy what they carry out of the snapshot, so the snapshot is kept for the next
/// <c>Collect()</c> of any instrument rather than made afresh: a fresh one allocated columns for
/// every series each time (at 10,000 histogram series, arrays on the large object heap, zeroed, and
/// the full collections they lead to), which cost several times the read itself
/// (perf/results/README.md, "Collect()"). One is kept, for the process, holding no series between
/// calls (<see cref="InstrumentSnapshot.ReleaseReferences"/>); a call made while another holds it
/// makes its own.
/// </remarks>
internal static class SnapshotReadings
{
    // The snapshot kept between calls, or null while a call holds it.
    private static InstrumentSnapshot? s_spare;

    /// <summary>Reads <paramref name="instrument"/> into the kept snapshot (or a new one) and makes a reading of each series. Thread-safe.</summary>
    /// <param name="instrument">The instrument to read.</param>
    /// <param name="toReading">The reading of series i of the snapshot: what it carries copied out of the snapshot.</param>
    /// <param name="collection">Whether the read is a collection of the instrument (see <see cref="Instrument.ReadInto(InstrumentSnapshot, bool)"/>).</param>
    /// <returns>One reading per series, in the snapshot's order.</returns>
    /// <exception cref="InvalidOperationException">An observable instrument's callback failed.</exception>
    public static TReading[] Of<TReading>(Instrument instrument, Func<InstrumentSnapshot, int, TReading> toReading, bool collection = true)
    {
        InstrumentSnapshot snapshot = Interlocked.Exchange(ref s_spare, null) ?? new InstrumentSnapshot();
        try
        {
            instrument.ReadInto(snapshot, collection);
            var readings = new TReading[snapshot.Count];
            for (int i = 0; i < readings.Length; i++)
            {
                readings[i] = toReading(snapshot, i);
            }

            return readings;
        }
        finally
        {
            snapshot.ReleaseReferences();
            Volatile.Write(ref s_spare, snapshot);
        }
    }

    /// <summary>The readings of an instrument read as longs (<see cref="InstrumentSnapshot.LongValues"/>), as <see cref="Of"/>: an up-down counter's or a gauge's <c>Collect()</c>.</summary>
    /// <param name="instrument">The instrument to read.</param>
    /// <returns>One reading per series, in the snapshot's order.</returns>
    public static LongReading[] Longs(Instrument instrument) =>
        Of(instrument, static (snapshot, i) => new LongReading(snapshot.TagsAt(i), snapshot.LongValues[i]));

    /// <summary>The readings of an instrument read as doubles (<see cref="InstrumentSnapshot.DoubleValues"/>), as <see cref="Of"/>, without exemplars: a double up-down counter's, a double gauge's or an observable instrument's <c>Collect()</c>.</summary>
    /// <param name="instrument">The instrument to read.</param>
    /// <returns>One reading per series, in the snapshot's order.</returns>
    /// <exception cref="InvalidOperationException">An observable instrument's callback failed.</exception>
    public static DoubleReading[] Doubles(Instrument instrument) =>
        Of(instrument, static (snapshot, i) => new DoubleReading(snapshot.TagsAt(i), snapshot.DoubleValues[i]));

    /// <summary>
    /// Reads <paramref name="instrument"/> as <see cref="Of"/> does and makes a
    /// <see cref="Measurement{T}"/> of each series: <paramref name="valueAt"/>'s value, with the
    /// series' tags (which the measurement copies). What an observable instrument's callback
    /// reports where the registry is published to <c>MeterListener</c>s (<c>RegistryMeterPublisher</c>,
    /// whose reads are no collections, and the OpenTelemetry bridge, whose reads are collections once a
    /// <c>MeterProvider</c> reads it). Thread-safe: a callback may run on any thread, several at once.
    /// </summary>
    /// <typeparam name="T">The measurement's value type.</typeparam>
    /// <param name="instrument">The instrument to read.</param>
    /// <param name="valueAt">The value of series i of the snapshot.</param>
    /// <param name="collection">Whether the read is a collection of the instrument (see <see cref="Instrument.ReadInto(InstrumentSnapshot, bool)"/>).</param>
    /// <returns>One measurement per series, in the snapshot's order.</returns>
    public static Measurement<T>[] Measurements<T>(Instrument instrument, Func<InstrumentSnapshot, int, T> valueAt, bool collection = true)
        where T : struct =>
        Of(instrument, (snapshot, i) => new Measurement<T>(valueAt(snapshot, i), snapshot.TagsAt(i).AsSpan()), collection);

    /// <summary>The measurements of an instrument read as longs (<see cref="InstrumentSnapshot.LongValues"/>), as <see cref="Measurements{T}"/>.</summary>
    public static Measurement<long>[] LongMeasurements(Instrument instrument, bool collection = true) => Measurements(instrument, static (snapshot, i) => snapshot.LongValues[i], collection);

    /// <summary>The measurements of an instrument read as doubles (<see cref="InstrumentSnapshot.DoubleValues"/>), as <see cref="Measurements{T}"/>.</summary>
    public static Measurement<double>[] DoubleMeasurements(Instrument instrument, bool collection = true) => Measurements(instrument, static (snapshot, i) => snapshot.DoubleValues[i], collection);
}
