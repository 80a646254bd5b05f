namespace ScalableMetrics.Exporter.Listening;

/// <summary>An <c>UpDownCounter&lt;T&gt;</c> of a floating-point <c>T</c>, recorded into a <see cref="PartitionedDoubleUpDownCounter"/>.</summary>
internal sealed class ListenedDoubleUpDownCounter(PartitionedDoubleUpDownCounter counter, KeyValuePair<string, object?>[] sourceTags, ListenerDrops drops)
    : ListenedInstrument(counter.Name, sourceTags, drops)
{
    private DoubleUpDownCounterSeries? _untagged;

    public override void Record(double value, ReadOnlySpan<KeyValuePair<string, object?>> tags)
    {
        if (!double.IsFinite(value))
        {
            Drop("an up-down counter increment must be finite");
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
