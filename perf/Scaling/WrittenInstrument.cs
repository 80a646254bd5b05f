namespace ScalableMetrics.Scaling;

/// <summary>An instrument whose series the <c>memory</c> command created and wrote.</summary>
/// <param name="Collect">Collects every series, as an exporter would (the timed part); returns the readings' count.</param>
/// <param name="ReadWrites">Collects and returns the writes read back: a counter's total, a histogram's or an operation's count.</param>
/// <param name="Writes">The writes made: one per series, and those of the hot series' threads.</param>
internal sealed record WrittenInstrument(Func<int> Collect, Func<long> ReadWrites, long Writes);
