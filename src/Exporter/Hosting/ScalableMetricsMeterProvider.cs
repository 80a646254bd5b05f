using Microsoft.Extensions.Options;
using OpenTelemetry;
using OpenTelemetry.Metrics;

namespace ScalableMetrics.Exporter.Hosting;

/// <summary>
/// The OpenTelemetry <c>MeterProvider</c> that <c>AddScalableMetrics</c> builds: it listens to the
/// bridge's meter and has the Prometheus pull reader, then whatever the options add.
/// </summary>
/// <remarks>
/// A type of its own rather than a <see cref="MeterProvider"/> registration, so that it neither
/// takes nor loses the place of a <c>MeterProvider</c> the application registers itself.
/// Disposed with the container, which shuts the provider down.
/// </remarks>
internal sealed class ScalableMetricsMeterProvider : IDisposable
{
    public ScalableMetricsMeterProvider(MeterBridge bridge, PrometheusPullExporter exporter, IOptions<ScalableMetricsOptions> options)
    {
        var reader = new BaseExportingMetricReader(exporter)
        {
            // Prometheus counters are totals since start.
            TemporalityPreference = MetricReaderTemporalityPreference.Cumulative,
        };

        MeterProviderBuilder builder = Sdk.CreateMeterProviderBuilder()
            .AddMeter(bridge.MeterName)
            .AddReader(reader);
        foreach (Action<MeterProviderBuilder> configure in options.Value.MeterProviderConfigurations)
        {
            configure(builder);
        }

        Provider = builder.Build();
    }

    public MeterProvider Provider { get; }

    public void Dispose() => Provider.Dispose();
}
