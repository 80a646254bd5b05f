namespace ScalableMetrics.Exporter.Listening;

/// <summary>A <c>Gauge&lt;T&gt;</c> of an integer <c>T</c>, recorded into a <see cref="Gauge"/>: the last value set wins.</summary>
internal sealed class ListenedGauge(Gauge gauge, KeyValuePair<string, object?>[] sourceTags, ListenerDrops drops)
    : ListenedSeriesInstrument<GaugeSeries>(gauge.Name, gauge.CreateRecorder(sourceTags), drops)
{
    public override void Record(long value, ReadOnlySpan<KeyValuePair<string, object?>> tags)
    {
        SeriesFor(tags)?.Set(value);
    }
}
