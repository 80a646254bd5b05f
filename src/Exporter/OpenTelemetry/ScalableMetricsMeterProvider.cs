using OpenTelemetry;
using OpenTelemetry.Metrics;
using ScalableMetrics.Exporter.Listening;

namespace ScalableMetrics.Exporter.OpenTelemetry;

/// <summary>
/// The OpenTelemetry <c>MeterProvider</c> that <c>AddScalableMetrics</c> builds with
/// <c>UseOpenTelemetry()</c> (<see cref="OpenTelemetryPart"/>): the Prometheus
/// pull reader (for the meters the options add; the registry's is written from the registry),
/// then whatever the options add.
/// </summary>
/// <remarks>
/// <para>The bridge's meter is added only when the options have <c>ConfigureMeterProvider</c>
/// steps, for the readers they add (OTLP, ...), with OpenTelemetry's limits set from the
/// registry's (<see cref="OpenTelemetryLimits"/>), and no other meter of its name (another
/// container's bridge). Without a step nothing would read it. The
/// scrape's collections of the provider run none of the bridge's callbacks
/// (<see cref="MeterBridge.BeginSkip"/>): its export leaves the bridge's meter out, and the scrape
/// reads the registry itself, so each scrape sums every series once.</para>
/// A type of its own rather than a <see cref="MeterProvider"/> registration, so that it neither
/// takes nor loses the place of a <c>MeterProvider</c> the application registers itself.
/// <para>The meters of <see cref="ScalableMetricsOptions.Meters"/> are dropped by a view: the
/// <see cref="MeterListenerHost"/> aggregates them, and the endpoint shows each instrument once.</para>
/// <para>Disposed with the container, which shuts the provider down.</para>
/// </remarks>
internal sealed class ScalableMetricsMeterProvider : IDisposable
{
    public ScalableMetricsMeterProvider(MeterBridge bridge, PrometheusPullExporter exporter, MeterListenerHost listened, ScalableMetricsOptions options, IReadOnlyList<Action<MeterProviderBuilder>> configurations)
    {
        var reader = new BaseExportingMetricReader(exporter)
        {
            // Prometheus counters are totals since start.
            TemporalityPreference = MetricReaderTemporalityPreference.Cumulative,
        };

        MeterProviderBuilder builder = Sdk.CreateMeterProviderBuilder().AddReader(reader);
        if (configurations.Count > 0)
        {
            builder.AddRegistryMeter(bridge);
        }

        foreach (Action<MeterProviderBuilder> configure in configurations)
        {
            configure(builder);
        }

        // One aggregation, one export: a meter the listener takes is dropped here, should a step
        // add it too (OpenTelemetry then does not even enable its instruments). The view comes
        // after the steps' views, which may still make streams of their own for it.
        if (options.Meters.Count > 0)
        {
            builder.AddView(instrument => listened.Takes(instrument.Meter.Name) ? MetricStreamConfiguration.Drop : null);
        }

        Provider = builder.Build();
    }

    public MeterProvider Provider { get; }

    public void Dispose() => Provider.Dispose();
}
