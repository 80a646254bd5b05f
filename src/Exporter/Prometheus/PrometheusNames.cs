namespace ScalableMetrics.Exporter.Prometheus;

/// <summary>
/// Metric and label names for metrics read through OpenTelemetry: a forwarder to the core's
/// <see cref="ExportedNames"/>, the one place the naming rules live, so that what the registry
/// refuses as a collision and what the exporter writes cannot drift apart.
/// </summary>
internal static class PrometheusNames
{
    /// <inheritdoc cref="ExportedNames.MetricName"/>
    public static string MetricName(string instrumentName, string? unit, PrometheusType type) =>
        ExportedNames.MetricName(instrumentName, unit, type switch
        {
            PrometheusType.Counter => ExportedKind.Counter,
            PrometheusType.Histogram => ExportedKind.Histogram,
            _ => ExportedKind.Gauge,
        });

    /// <inheritdoc cref="ExportedNames.SanitizeMetricName"/>
    public static string SanitizeMetricName(string name) => ExportedNames.SanitizeMetricName(name);

    /// <inheritdoc cref="ExportedNames.SanitizeLabelName"/>
    public static string SanitizeLabelName(string key) => ExportedNames.SanitizeLabelName(key);

    /// <inheritdoc cref="ExportedNames.UnitSuffix"/>
    public static string UnitSuffix(string? unit) => ExportedNames.UnitSuffix(unit);
}
