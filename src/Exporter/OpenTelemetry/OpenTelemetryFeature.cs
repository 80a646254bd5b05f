using OpenTelemetry.Metrics;
using ScalableMetrics.Exporter.Hosting;

namespace ScalableMetrics.Exporter.OpenTelemetry;

/// <summary>
/// The OpenTelemetry bridge and <c>MeterProvider</c>, turned on in the options by <c>UseOpenTelemetry()</c>
/// or <c>ConfigureMeterProvider</c>: one per options, holding the <c>ConfigureMeterProvider</c> steps.
/// </summary>
internal sealed class OpenTelemetryFeature : IScalableMetricsFeature
{
    /// <summary>The steps that configure the <c>MeterProvider</c>, in the order they were added.</summary>
    public List<Action<MeterProviderBuilder>> MeterProviderConfigurations { get; } = [];

    /// <inheritdoc/>
    public IScalableMetricsPart Build(IServiceProvider services) => new OpenTelemetryPart(services, MeterProviderConfigurations);

    /// <inheritdoc/>
    /// <remarks>The bridge's meter is the registry's meter: the host's own publication would be a second meter of that
    /// name. While no <c>MeterProvider</c> reads it, the bridge's reads are no collections, as the host's
    /// (<see cref="MeterBridge.ReadsAreCollections"/>).</remarks>
    public bool PublishesRegistryMeter => true;
}
