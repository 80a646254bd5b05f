namespace ScalableMetrics.Exporter.Listening;

/// <summary>A <c>Histogram&lt;T&gt;</c> that a view makes exponential (<see cref="MetricView.ExponentialHistogram"/>),
/// recorded into a <see cref="PartitionedExponentialHistogram"/>: a negative or NaN value, which
/// such a histogram does not hold, is dropped and counted.</summary>
internal sealed class ListenedExponentialHistogram(PartitionedExponentialHistogram histogram, KeyValuePair<string, object?>[] sourceTags, ListenerDrops drops)
    : ListenedSeriesInstrument<ExponentialHistogramSeries>(histogram.Name, histogram.CreateRecorder(sourceTags), drops)
{
    // The series records doubles only: a long is recorded as its double, and refused as one.
    public override void Record(long value, ReadOnlySpan<KeyValuePair<string, object?>> tags) => Record((double)value, tags);

    public override void Record(double value, ReadOnlySpan<KeyValuePair<string, object?>> tags)
    {
        if (!(value >= 0))
        {
            Drop(double.IsNaN(value) ? "a histogram value must not be NaN" : "an exponential histogram holds no negative value");
            return;
        }

        SeriesFor(tags)?.RecordValid(value);
    }
}
