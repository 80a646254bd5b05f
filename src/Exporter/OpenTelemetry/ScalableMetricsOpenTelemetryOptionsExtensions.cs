using OpenTelemetry.Metrics;
using ScalableMetrics.Exporter;
using ScalableMetrics.Exporter.OpenTelemetry;

// In the namespace of AddScalableMetrics rather than of the options it extends: web and worker
// projects import it implicitly, so o => o.ConfigureMeterProvider(...), an options method before
// the packages were split, keeps compiling without a using.
namespace Microsoft.Extensions.DependencyInjection;

/// <summary>Turns on the OpenTelemetry bridge and <c>MeterProvider</c> of <c>AddScalableMetrics</c>.</summary>
public static class ScalableMetricsOpenTelemetryOptionsExtensions
{
    /// <summary>
    /// Has <c>AddScalableMetrics</c> also build, when the host starts, a <see cref="MeterBridge"/>
    /// that publishes the registry as a <see cref="System.Diagnostics.Metrics.Meter"/> named
    /// <see cref="ScalableMetricsOptions.MeterName"/>, and an OpenTelemetry <c>MeterProvider</c>
    /// whose other meters (those <see cref="ConfigureMeterProvider"/> steps add) follow the
    /// registry's families in every Prometheus scrape. Both are disposed with the container.
    /// </summary>
    /// <param name="options">The options of <c>AddScalableMetrics</c>.</param>
    /// <returns><paramref name="options"/>, to chain calls.</returns>
    /// <exception cref="ArgumentNullException"><paramref name="options"/> is null.</exception>
    /// <remarks>Without it (or a <see cref="ConfigureMeterProvider"/> step), <c>AddScalableMetrics</c>
    /// builds neither. Calling it again changes nothing.</remarks>
    public static ScalableMetricsOptions UseOpenTelemetry(this ScalableMetricsOptions options)
    {
        ArgumentNullException.ThrowIfNull(options);
        options.GetOrAddFeature<OpenTelemetryFeature>();
        return options;
    }

    /// <summary>
    /// Turns the OpenTelemetry bridge and <c>MeterProvider</c> on (<see cref="UseOpenTelemetry"/>) and
    /// adds a step that configures the <c>MeterProvider</c> after the meter and the Prometheus
    /// reader are added: another reader or exporter (e.g. <c>b =&gt; b.AddOtlpExporter()</c>),
    /// more meters, views or a resource.
    /// </summary>
    /// <remarks>The Prometheus scrape writes the registry from the registry itself, and the
    /// families of the meters these steps add from the <c>MeterProvider</c>. The registry's meter
    /// joins the <c>MeterProvider</c> only when there is a step, for the readers a step adds
    /// (OTLP, ...): without one, nothing would read it there. A scrape's collection of the
    /// <c>MeterProvider</c> runs none of the meter's callbacks, so each scrape sums every series
    /// once, and each collection of a step's reader once more.</remarks>
    /// <param name="options">The options of <c>AddScalableMetrics</c>.</param>
    /// <param name="configure">The step; steps run in the order they were added.</param>
    /// <returns><paramref name="options"/>, to chain calls.</returns>
    /// <exception cref="ArgumentNullException"><paramref name="options"/> or <paramref name="configure"/> is null.</exception>
    public static ScalableMetricsOptions ConfigureMeterProvider(this ScalableMetricsOptions options, Action<MeterProviderBuilder> configure)
    {
        ArgumentNullException.ThrowIfNull(options);
        ArgumentNullException.ThrowIfNull(configure);
        options.GetOrAddFeature<OpenTelemetryFeature>().MeterProviderConfigurations.Add(configure);
        return options;
    }
}
