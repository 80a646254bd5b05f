namespace ScalableMetrics.Exporter.Listening;

/// <summary>An <c>UpDownCounter&lt;T&gt;</c> of an integer <c>T</c>, recorded into a <see cref="PartitionedUpDownCounter"/>.</summary>
internal sealed class ListenedUpDownCounter(PartitionedUpDownCounter counter, KeyValuePair<string, object?>[] sourceTags, ListenerDrops drops)
    : ListenedInstrument(counter.Name, sourceTags, drops)
{
    private UpDownCounterSeries? _untagged;

    public override void Record(long value, ReadOnlySpan<KeyValuePair<string, object?>> tags)
    {
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
