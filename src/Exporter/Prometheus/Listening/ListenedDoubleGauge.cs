namespace ScalableMetrics.Exporter.Listening;

/// <summary>A <c>Gauge&lt;T&gt;</c> of a floating-point <c>T</c>, recorded into a <see cref="DoubleGauge"/> (which takes NaN and infinities): the last value set wins.</summary>
internal sealed class ListenedDoubleGauge(DoubleGauge gauge, KeyValuePair<string, object?>[] sourceTags, ListenerDrops drops)
    : ListenedSeriesInstrument<DoubleGaugeSeries>(gauge.Name, gauge.CreateRecorder(sourceTags), drops)
{
    public override void Record(double value, ReadOnlySpan<KeyValuePair<string, object?>> tags)
    {
        SeriesFor(tags)?.Set(value);
    }
}
