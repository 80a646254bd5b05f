namespace ScalableMetrics.Exporter.Listening;

/// <summary>A <c>Gauge&lt;T&gt;</c> of an integer <c>T</c>, recorded into a <see cref="Gauge"/>: the last value set wins.</summary>
internal sealed class ListenedGauge(Gauge gauge, KeyValuePair<string, object?>[] sourceTags, ListenerDrops drops)
    : ListenedInstrument(gauge.Name, sourceTags, drops)
{
    private GaugeSeries? _untagged;

    public override void Record(long value, ReadOnlySpan<KeyValuePair<string, object?>> tags)
    {
        try
        {
            (tags.IsEmpty ? (_untagged ??= gauge.Bind(SourceTags)) : gauge.Bind(WithSourceTags(tags))).Set(value);
        }
        catch (ArgumentException e)
        {
            Drop("its tags break the registry's rules", e);
        }
    }
}
