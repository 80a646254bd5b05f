namespace ScalableMetrics.Exporter.Listening;

/// <summary>A <c>Counter&lt;T&gt;</c> of an integer <c>T</c>, recorded into a <see cref="PartitionedCounter"/>.</summary>
internal sealed class ListenedCounter(PartitionedCounter counter, KeyValuePair<string, object?>[] sourceTags, ListenerDrops drops)
    : ListenedSeriesInstrument<CounterSeries>(counter.Name, counter.CreateRecorder(sourceTags), drops)
{
    public override void Record(long value, ReadOnlySpan<KeyValuePair<string, object?>> tags)
    {
        if (value < 0)
        {
            Drop("a counter increment must not be negative");
            return;
        }

        SeriesFor(tags)?.AddValid(value);
    }
}
