namespace ScalableMetrics.Exporter.Listening;

/// <summary>A <c>Histogram&lt;T&gt;</c>, recorded into a <see cref="PartitionedHistogram"/>.</summary>
internal sealed class ListenedHistogram(PartitionedHistogram histogram, KeyValuePair<string, object?>[] sourceTags, ListenerDrops drops)
    : ListenedInstrument(histogram.Name, sourceTags, drops)
{
    private HistogramSeries? _untagged;

    public override void Record(long value, ReadOnlySpan<KeyValuePair<string, object?>> tags)
    {
        if (tags.IsEmpty && _untagged is { } untagged)
        {
            untagged.RecordValid(value);
            return;
        }

        try
        {
            (tags.IsEmpty ? (_untagged ??= histogram.Bind(SourceTags)) : histogram.Bind(WithSourceTags(tags))).Record(value);
        }
        catch (ArgumentException e)
        {
            Drop("its tags break the registry's rules", e);
        }
    }

    public override void Record(double value, ReadOnlySpan<KeyValuePair<string, object?>> tags)
    {
        // The untagged series once bound: no try region and one NaN test around the record, so
        // that the JIT inlines the record into this method (measured: perf/results, issue 11).
        if (tags.IsEmpty && _untagged is { } untagged && !double.IsNaN(value))
        {
            untagged.RecordValid(value);
            return;
        }

        RecordSlow(value, tags);
    }

    private void RecordSlow(double value, ReadOnlySpan<KeyValuePair<string, object?>> tags)
    {
        if (double.IsNaN(value))
        {
            Drop("a histogram value must not be NaN");
            return;
        }

        try
        {
            (tags.IsEmpty ? (_untagged ??= histogram.Bind(SourceTags)) : histogram.Bind(WithSourceTags(tags))).Record(value);
        }
        catch (ArgumentException e)
        {
            Drop("its tags break the registry's rules", e);
        }
    }
}
