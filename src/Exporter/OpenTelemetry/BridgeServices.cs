using System.Diagnostics.Metrics;
using Microsoft.Extensions.DependencyInjection.Extensions;

namespace ScalableMetrics.Exporter.OpenTelemetry;

/// <summary>
/// The container's one <see cref="MeterBridge"/>: a service where <c>AddScalableMetricsInstrumentation</c>
/// registered it (a team's own <c>MeterProvider</c> reads it), else made by <see cref="OpenTelemetryPart"/>
/// for its own; never two meters of one name publishing the same registry.
/// </summary>
internal static class BridgeServices
{
    /// <summary>Registers the bridge as a singleton service, once.</summary>
    public static void Add(IServiceCollection services) => services.TryAddSingleton(static provider => Create(provider));

    /// <summary>A bridge of the container's registry, on the meter the options name, from the container's meter
    /// factory where there is one; its reads are no collections until a <c>MeterProvider</c> takes its meter
    /// (<see cref="MeterBridge.ReadsAreCollections"/>), as it publishes the registry to tools in the host's stead.</summary>
    public static MeterBridge Create(IServiceProvider services)
    {
        ScalableMetricsOptions options = services.GetRequiredService<IOptions<ScalableMetricsOptions>>().Value;
        return new MeterBridge(services.GetRequiredService<MetricRegistry>(), options.MeterName, options.MeterVersion, services.GetService<IMeterFactory>(), readsAreCollections: false);
    }
}
