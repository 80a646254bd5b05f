namespace ScalableMetrics.Exporter.Listening;

/// <summary>A <c>Counter&lt;T&gt;</c> of an integer <c>T</c>, recorded into a <see cref="PartitionedCounter"/>.</summary>
internal sealed class ListenedCounter(PartitionedCounter counter, KeyValuePair<string, object?>[] sourceTags, ListenerDrops drops)
    : ListenedInstrument(counter.Name, sourceTags, drops)
{
    private CounterSeries? _untagged;

    public override void Record(long value, ReadOnlySpan<KeyValuePair<string, object?>> tags)
    {
        // The untagged series once bound: no try region around the add, so that the JIT inlines
        // it into this method (as ListenedHistogram; measured there).
        if (tags.IsEmpty && _untagged is { } untagged && value >= 0)
        {
            untagged.AddValid(value);
            return;
        }

        RecordSlow(value, tags);
    }

    private void RecordSlow(long value, ReadOnlySpan<KeyValuePair<string, object?>> tags)
    {
        if (value < 0)
        {
            Drop("a counter increment must not be negative");
            return;
        }

        try
        {
            if (tags.IsEmpty)
            {
                (_untagged ??= counter.Bind(SourceTags)).Add(value);
            }
            else
            {
                counter.Add(value, WithSourceTags(tags));
            }
        }
        catch (ArgumentException e)
        {
            Drop("its tags break the registry's rules", e);
        }
    }
}
