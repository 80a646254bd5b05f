using ScalableMetrics.Exporter;
using ScalableMetrics.Exporter.OpenTelemetry.Otlp;

namespace Microsoft.Extensions.DependencyInjection;

/// <summary>
/// Turns on the OTLP exporter of a <see cref="ScalableMetricsOptions"/>: one call in
/// <c>AddScalableMetrics(o =&gt; o.AddOtlpExporter())</c>. In this namespace, as
/// <c>AddScalableMetrics</c> is, so that a web project needs no extra <c>using</c>.
/// </summary>
public static class ScalableMetricsOtlpOptionsExtensions
{
    /// <summary>
    /// Pushes the registry and every registry taken with <see cref="ScalableMetricsOptions.AddMeter"/>
    /// to an OTLP receiver (an OpenTelemetry Collector, the .NET Aspire dashboard, a vendor's endpoint)
    /// every <see cref="ScalableMetricsOtlpOptions.ExportInterval"/> and once when the host stops,
    /// with the settings of the configuration section <c>ScalableMetrics:Otlp</c> and the
    /// <c>OTEL_*</c> variables (see <see cref="ScalableMetricsOtlpOptions"/>).
    /// </summary>
    /// <param name="options">The options of <c>AddScalableMetrics</c>.</param>
    /// <returns><paramref name="options"/>, to chain calls.</returns>
    /// <exception cref="ArgumentNullException"><paramref name="options"/> is null.</exception>
    /// <remarks>Calling it again turns nothing on twice. Invalid settings stop the host at start.</remarks>
    public static ScalableMetricsOptions AddOtlpExporter(this ScalableMetricsOptions options) =>
        AddOtlpExporter(options, configure: null);

    /// <summary>
    /// Turns on the OTLP exporter as <see cref="AddOtlpExporter(ScalableMetricsOptions)"/> does, and
    /// configures it after the configuration and the environment: what <paramref name="configure"/>
    /// sets wins over both.
    /// </summary>
    /// <param name="options">The options of <c>AddScalableMetrics</c>.</param>
    /// <param name="configure">Configures the exporter's settings; runs once, when the host starts. Null to leave them be.</param>
    /// <returns><paramref name="options"/>, to chain calls.</returns>
    /// <exception cref="ArgumentNullException"><paramref name="options"/> is null.</exception>
    /// <remarks>Calling it again adds <paramref name="configure"/> after the earlier ones.</remarks>
    public static ScalableMetricsOptions AddOtlpExporter(this ScalableMetricsOptions options, Action<ScalableMetricsOtlpOptions>? configure)
    {
        ArgumentNullException.ThrowIfNull(options);
        OtlpFeature feature = options.GetOrAddFeature<OtlpFeature>();
        if (configure is not null)
        {
            feature.Configurations.Add(configure);
        }

        return options;
    }
}
