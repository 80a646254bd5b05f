using System.Runtime.CompilerServices;
using ScalableMetrics;
using ScalableMetrics.Exporter;
using ScalableMetrics.Exporter.OpenTelemetry;

namespace OpenTelemetry.Metrics;

/// <summary>
/// Adds ScalableMetrics to a <see cref="MeterProviderBuilder"/> a team already has
/// (<c>services.AddOpenTelemetry().WithMetrics(m =&gt; m.AddScalableMetricsInstrumentation())</c>),
/// as OpenTelemetry's own instrumentation packages extend it.
/// </summary>
public static class ScalableMetricsMeterProviderBuilderExtensions
{
    // The builders the bridge's meter was added to: a second call on one builder adds nothing,
    // where a second view would make a second stream of every instrument (duplicate series).
    private static readonly ConditionalWeakTable<MeterProviderBuilder, object> s_added = [];
    private static readonly object s_marker = new();

    /// <summary>
    /// Adds the meter of the container's <see cref="MeterBridge"/>, which publishes the container's
    /// <see cref="MetricRegistry"/>, to the <c>MeterProvider</c> being built, with OpenTelemetry's
    /// limits set from the registry's: the cardinality limit of each of the bridge's instruments is
    /// the series limit of the registry instrument it publishes
    /// (<see cref="MetricRegistryOptions.MaxSeriesPerInstrument"/>, or its view's
    /// <see cref="MetricView.CardinalityLimit"/>) plus one (the registry's overflow series), and
    /// the metric stream limit two per <see cref="MetricRegistryOptions.MaxInstruments"/> plus
    /// OpenTelemetry's default 1,000 for the other meters. So the provider's readers see
    /// exactly the registry's series: past the registry's limit its one overflow series
    /// (<c>otel.metric.overflow=true</c>) and no overflow series of OpenTelemetry's own.
    /// </summary>
    /// <param name="builder">The builder, e.g. the one <c>WithMetrics</c> hands out.</param>
    /// <returns><paramref name="builder"/>, to chain calls.</returns>
    /// <exception cref="ArgumentNullException"><paramref name="builder"/> is null.</exception>
    /// <exception cref="NotSupportedException">The builder's services can no longer be changed (its
    /// service provider is built already), or the builder does not defer to them
    /// (<see cref="IDeferredMeterProviderBuilder"/>, as every builder of OpenTelemetry's SDK does).</exception>
    /// <remarks>
    /// <para>Registers ScalableMetrics in the builder's services as
    /// <see cref="ScalableMetricsServiceCollectionExtensions.AddScalableMetrics(IServiceCollection)"/>
    /// does, which adds nothing that <c>AddScalableMetrics</c> (or <c>builder.AddScalableMetrics()</c>,
    /// with its configuration section) registered already: the registry, the bridge and its meter
    /// stay the container's singletons, shared with the scrape endpoint. Without a host (a builder
    /// of <c>Sdk.CreateMeterProviderBuilder()</c>) they are the provider's own, unless its
    /// <c>ConfigureServices</c> registers a <see cref="MetricRegistry"/> first.</para>
    /// <para>The meter's name is read from <see cref="ScalableMetricsOptions"/>, and the limits from
    /// the container's registry, when the provider is built. A <c>SetMaxMetricStreams</c> the team calls after this one replaces the
    /// stream limit. Calling it twice on one builder adds the meter once.</para>
    /// <para>The provider takes the container's bridge's meter alone: a view drops every other meter of its name
    /// (another container's bridge, where a process runs several hosts; a host's own publication of its registry),
    /// which OpenTelemetry's <c>AddMeter</c>, matching by name, would take too.</para>
    /// <para>The Prometheus endpoint keeps writing the registry from the registry itself; this
    /// provider is the team's, for its own readers (OTLP, ...). It is not for a
    /// <see cref="ScalableMetricsOpenTelemetryOptionsExtensions.ConfigureMeterProvider"/> step: the provider those steps
    /// configure has the meter already. A histogram of the registry does not cross (see
    /// <see cref="MeterBridge"/>).</para>
    /// </remarks>
    public static MeterProviderBuilder AddScalableMetricsInstrumentation(this MeterProviderBuilder builder)
    {
        ArgumentNullException.ThrowIfNull(builder);
        if (builder is not IDeferredMeterProviderBuilder deferred)
        {
            throw new NotSupportedException("The builder cannot read the services it is built with: use the builder of WithMetrics or of Sdk.CreateMeterProviderBuilder().");
        }

        builder.ConfigureServices(static services =>
        {
            services.AddScalableMetrics();
            BridgeServices.Add(services);
        });
        deferred.Configure(static (services, builder) =>
        {
            if (!s_added.TryAdd(builder, s_marker))
            {
                return;
            }

            // Resolving the bridge creates its meter now, before the provider starts listening.
            MeterBridge bridge = services.GetRequiredService<MeterBridge>();
            builder.AddRegistryMeter(bridge);
        });
        return builder;
    }
}
