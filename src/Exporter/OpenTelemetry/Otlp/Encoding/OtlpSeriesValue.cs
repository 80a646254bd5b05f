namespace ScalableMetrics.Exporter.OpenTelemetry.Otlp.Encoding;

/// <summary>
/// A series' cumulative reading, as a delta export keeps it to measure the next one from: one
/// shape for every kind that goes delta, each using the fields it needs.
/// </summary>
/// <remarks>A long counter keeps <see cref="Count"/>; a double counter and an observable counter
/// <see cref="Value"/>; an exponential histogram its <see cref="ExponentialHistogramReading"/> in
/// <see cref="Reading"/> (immutable, so kept, not copied); a histogram keeps none here, its baselines
/// are its instrument's arrays (<see cref="OtlpInstrumentState"/>);
/// an operation <see cref="Count"/>, <see cref="Ticks"/> and its bucket counts in <see cref="Reading"/>.</remarks>
internal struct OtlpSeriesValue
{
    /// <summary>A long counter's total, or an operation's count.</summary>
    public long Count;

    /// <summary>An operation's total elapsed time in <see cref="System.Diagnostics.Stopwatch"/> ticks.</summary>
    public long Ticks;

    /// <summary>A double counter's or an observable counter's total.</summary>
    public double Value;

    /// <summary>An exponential histogram's reading, or an operation's bucket counts (<see cref="IReadOnlyList{T}"/> of <see cref="long"/>), or null.</summary>
    public object? Reading;
}
