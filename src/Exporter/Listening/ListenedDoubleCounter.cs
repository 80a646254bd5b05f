namespace ScalableMetrics.Exporter.Listening;

/// <summary>A <c>Counter&lt;T&gt;</c> of a floating-point <c>T</c>, recorded into a <see cref="PartitionedDoubleCounter"/>.</summary>
internal sealed class ListenedDoubleCounter(PartitionedDoubleCounter counter, KeyValuePair<string, object?>[] sourceTags, ListenerDrops drops)
    : ListenedInstrument(counter.Name, sourceTags, drops)
{
    private DoubleCounterSeries? _untagged;

    public override void Record(double value, ReadOnlySpan<KeyValuePair<string, object?>> tags)
    {
        // Also false for NaN.
        if (!(value >= 0 && double.IsFinite(value)))
        {
            Drop("a counter increment must be finite and not negative");
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
