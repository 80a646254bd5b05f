namespace ScalableMetrics.Exporter.Listening;

/// <summary>A <c>Counter&lt;T&gt;</c> of a floating-point <c>T</c>, recorded into a <see cref="PartitionedDoubleCounter"/>.</summary>
internal sealed class ListenedDoubleCounter(PartitionedDoubleCounter counter, KeyValuePair<string, object?>[] sourceTags, ListenerDrops drops)
    : ListenedSeriesInstrument<DoubleCounterSeries>(counter.Name, counter.CreateRecorder(sourceTags), drops)
{
    public override void Record(double value, ReadOnlySpan<KeyValuePair<string, object?>> tags)
    {
        // Also false for NaN.
        if (!(value >= 0 && double.IsFinite(value)))
        {
            Drop("a counter increment must be finite and not negative");
            return;
        }

        SeriesFor(tags)?.AddValid(value);
    }
}
