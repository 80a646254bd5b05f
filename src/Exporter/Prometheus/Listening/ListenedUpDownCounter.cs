namespace ScalableMetrics.Exporter.Listening;

/// <summary>An <c>UpDownCounter&lt;T&gt;</c> of an integer <c>T</c>, recorded into a <see cref="PartitionedUpDownCounter"/>.</summary>
internal sealed class ListenedUpDownCounter(PartitionedUpDownCounter counter, KeyValuePair<string, object?>[] sourceTags, ListenerDrops drops)
    : ListenedSeriesInstrument<UpDownCounterSeries>(counter.Name, counter.CreateRecorder(sourceTags), drops)
{
    public override void Record(long value, ReadOnlySpan<KeyValuePair<string, object?>> tags)
    {
        SeriesFor(tags)?.Add(value);
    }
}
