using OpenTelemetry.Metrics;

namespace ScalableMetrics.Exporter.OpenTelemetry;

/// <summary>
/// OpenTelemetry's limits, set from the registry's so that one set of limits holds: what the
/// registry keeps, a reader of the <c>MeterProvider</c> sees, with no cap and no overflow series
/// of OpenTelemetry's own.
/// </summary>
internal static class OpenTelemetryLimits
{
    /// <summary>OpenTelemetry's default metric stream limit, kept for the meters other than the registry's.</summary>
    public const int OtherMeterStreams = 1000;

    /// <summary>
    /// The cardinality limit of one of the bridge's instruments: the series limit of the registry
    /// instrument it publishes (<see cref="MetricRegistryOptions.MaxSeriesPerInstrument"/>, or its
    /// view's <see cref="MetricView.CardinalityLimit"/>), plus one for the registry's overflow
    /// series, which OpenTelemetry sees as one more tag set (<c>otel.metric.overflow=true</c>).
    /// OpenTelemetry 1.20.1 counts neither the series without
    /// tags nor its own overflow point against the limit (<c>MetricStreamConfiguration.CardinalityLimit</c>);
    /// <c>OpenTelemetryLimitsTests</c> shows that this value is enough. With one less, OpenTelemetry
    /// folds the last tag set it meets into an overflow point of its own: where that is a series of
    /// the registry's, the scrape holds two <c>otel_metric_overflow="true"</c> samples (seen while
    /// the registry handed its series out in no set order); the registry now hands them out in
    /// creation order, its overflow series last, which hides the gap rather than closing it.
    /// </summary>
    /// <param name="maxSeries">The registry instrument's series limit.</param>
    public static int CardinalityLimit(int maxSeries) =>
        maxSeries >= int.MaxValue - 1 ? int.MaxValue : maxSeries + 1;

    /// <summary>The metric stream limit: two per registry instrument and OpenTelemetry's default
    /// for the other meters. Two is the most any kind takes on the bridge's meter (an
    /// <see cref="OperationData"/>, with or without buckets, is two counters; every other kind is
    /// one instrument; a <see cref="PartitionedHistogram"/> none: see <see cref="MeterBridge"/>).</summary>
    public static int MaxMetricStreams(int maxInstruments) =>
        (int)Math.Min(int.MaxValue, (2L * maxInstruments) + OtherMeterStreams);

    /// <summary>
    /// Adds the meter of <paramref name="bridge"/> to <paramref name="builder"/> with both limits,
    /// read from the registry it publishes: each instrument's cardinality limit from its registry
    /// instrument's own series limit (<see cref="MeterBridge.SeriesLimitOf"/>), so that one a view
    /// raised keeps every series, and the stream limit from <see cref="MetricRegistry.MaxInstruments"/>.
    /// </summary>
    /// <remarks>
    /// OpenTelemetry's <c>AddMeter</c> takes a meter by its name, and so every meter of that name in
    /// the process: another container's bridge (integration tests run several hosts in one
    /// process), or a host's own publication of its registry. The view drops each of those, so the
    /// provider reads this bridge's registry alone: its readers export no other registry's series,
    /// and its collections run no other registry's callbacks, count no collection of it for idle
    /// expiry and take no removed series' last value from its own readers.
    /// (A view the provider's configuration adds after this one may still make a stream of its own
    /// for such an instrument, as OpenTelemetry applies every view that matches.)
    /// </remarks>
    /// <param name="builder">The builder of the <c>MeterProvider</c>.</param>
    /// <param name="bridge">The bridge whose meter is added.</param>
    /// <returns><paramref name="builder"/>.</returns>
    public static MeterProviderBuilder AddRegistryMeter(this MeterProviderBuilder builder, MeterBridge bridge)
    {
        string meterName = bridge.MeterName;

        // Its readers' exports are collections of the registry from now on (MeterBridge.ReadsAreCollections).
        bridge.ReadByMeterProvider();
        return builder
            .AddMeter(meterName)
            .AddView(instrument => bridge.Owns(instrument.Meter)
                ? new MetricStreamConfiguration { CardinalityLimit = CardinalityLimit(bridge.SeriesLimitOf(instrument.Name)) }

                // AddMeter matches a name whatever its case.
                : string.Equals(instrument.Meter.Name, meterName, StringComparison.OrdinalIgnoreCase) ? MetricStreamConfiguration.Drop : null)
            .SetMaxMetricStreams(MaxMetricStreams(bridge.Registry.MaxInstruments));
    }
}
