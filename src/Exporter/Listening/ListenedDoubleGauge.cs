namespace ScalableMetrics.Exporter.Listening;

/// <summary>A <c>Gauge&lt;T&gt;</c> of a floating-point <c>T</c>, recorded into a <see cref="DoubleGauge"/> (which takes NaN and infinities): the last value set wins.</summary>
internal sealed class ListenedDoubleGauge(DoubleGauge gauge, KeyValuePair<string, object?>[] sourceTags, ListenerDrops drops)
    : ListenedInstrument(gauge.Name, sourceTags, drops)
{
    private DoubleGaugeSeries? _untagged;

    public override void Record(double value, ReadOnlySpan<KeyValuePair<string, object?>> tags)
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
