namespace ScalableMetrics.Exporter.Listening;

/// <summary>A <c>Histogram&lt;T&gt;</c>, recorded into a <see cref="PartitionedHistogram"/>.</summary>
internal sealed class ListenedHistogram(PartitionedHistogram histogram, KeyValuePair<string, object?>[] sourceTags, ListenerDrops drops)
    : ListenedSeriesInstrument<HistogramSeries>(histogram.Name, histogram.CreateRecorder(sourceTags), drops)
{
    public override void Record(long value, ReadOnlySpan<KeyValuePair<string, object?>> tags) => SeriesFor(tags)?.RecordValid(value);

    public override void Record(double value, ReadOnlySpan<KeyValuePair<string, object?>> tags)
    {
        if (double.IsNaN(value))
        {
            Drop("a histogram value must not be NaN");
            return;
        }

        SeriesFor(tags)?.RecordValid(value);
    }
}
