namespace ScalableMetrics.Exporter.Listening;

/// <summary>An <c>UpDownCounter&lt;T&gt;</c> of a floating-point <c>T</c>, recorded into a <see cref="PartitionedDoubleUpDownCounter"/>.</summary>
internal sealed class ListenedDoubleUpDownCounter(PartitionedDoubleUpDownCounter counter, KeyValuePair<string, object?>[] sourceTags, ListenerDrops drops)
    : ListenedSeriesInstrument<DoubleUpDownCounterSeries>(counter.Name, counter.CreateRecorder(sourceTags), drops)
{
    public override void Record(double value, ReadOnlySpan<KeyValuePair<string, object?>> tags)
    {
        if (!double.IsFinite(value))
        {
            Drop("an up-down counter increment must be finite");
            return;
        }

        SeriesFor(tags)?.AddValid(value);
    }
}
