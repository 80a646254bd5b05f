namespace ScalableMetrics.Snapshots;

/// <summary>
/// The public <c>Collect()</c> of every kind: a view over a fresh <see cref="InstrumentSnapshot"/>,
/// one reading per series read, so that <c>Collect()</c> reads exactly what the exporters read.
/// </summary>
internal static class SnapshotReadings
{
    /// <summary>Reads <paramref name="instrument"/> into a new snapshot and makes a reading of each series.</summary>
    /// <param name="instrument">The instrument to read.</param>
    /// <param name="toReading">The reading of series i of the snapshot.</param>
    /// <returns>One reading per series, in the snapshot's order.</returns>
    /// <exception cref="InvalidOperationException">An observable instrument's callback failed.</exception>
    public static TReading[] Of<TReading>(Instrument instrument, Func<InstrumentSnapshot, int, TReading> toReading)
    {
        var snapshot = new InstrumentSnapshot();
        instrument.ReadInto(snapshot);
        var readings = new TReading[snapshot.Count];
        for (int i = 0; i < readings.Length; i++)
        {
            readings[i] = toReading(snapshot, i);
        }

        return readings;
    }
}
