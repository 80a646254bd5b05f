using ScalableMetrics.Exporter.Hosting;
using ScalableMetrics.Exporter.OpenTelemetry.Otlp.Configuration;
using ScalableMetrics.Exporter.OpenTelemetry.Otlp.Transport;

namespace ScalableMetrics.Exporter.OpenTelemetry.Otlp;

/// <summary>
/// The OTLP exporter as a feature of <see cref="ScalableMetricsOptions"/>: turned on by
/// <c>AddOtlpExporter</c>, which adds its configuration steps here, and built into an
/// <see cref="OtlpPart"/> once the container exists. A feature rather than services registered by
/// <c>AddScalableMetrics</c>, because the hosting package that holds <c>AddScalableMetrics</c> does
/// not reference this one, and the options' steps run only once the container is built.
/// Not thread-safe: configured during the options' configuration, read once at the host's start.
/// </summary>
internal sealed class OtlpFeature : IScalableMetricsFeature
{
    /// <summary>The code's configuration steps, in the order they were given; they run after the
    /// environment's and the configuration section's settings.</summary>
    public List<Action<ScalableMetricsOtlpOptions>> Configurations { get; } = [];

    /// <inheritdoc/>
    public IScalableMetricsPart Build(IServiceProvider services) =>
        new OtlpPart(services, OtlpOptionsSetup.Create(services, Configurations));
}
