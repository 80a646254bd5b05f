using OpenTelemetry.Metrics;
using ScalableMetrics.Naming;

namespace ScalableMetrics.Exporter.Prometheus;

/// <summary>
/// What the text format needs of one OpenTelemetry metric apart from its points: the family's
/// name, type and help, and the labels that name its scope (the meter). Computed once per
/// <see cref="Metric"/>, which OpenTelemetry keeps from collection to collection.
/// </summary>
internal sealed class PrometheusMetricFamily
{
    private PrometheusMetricFamily(string name, PrometheusType type, string? help, string unit, KeyValuePair<string, string>[] scopeLabels)
    {
        Name = name;
        Unit = unit;
        Type = type;
        Help = help;
        ScopeLabels = scopeLabels;
    }

    public string Name { get; }

    public PrometheusType Type { get; }

    public string? Help { get; }

    /// <summary>The unit as the name's suffix spells it, or empty: OpenMetrics' <c># UNIT</c>.</summary>
    public string Unit { get; }

    /// <summary><c>otel_scope_name</c>, <c>otel_scope_version</c> if the meter has one, and
    /// <c>otel_scope_&lt;key&gt;</c> for each of the meter's tags; names already sanitized.</summary>
    public KeyValuePair<string, string>[] ScopeLabels { get; }

    /// <summary>
    /// The names the family's samples are stored under: the family name for counters and gauges,
    /// and <c>_sum</c>, <c>_count</c> (and <c>_bucket</c> for histograms) after it.
    /// </summary>
    public string[] SampleNames => Type switch
    {
        PrometheusType.Summary => [Name, Name + "_sum", Name + "_count"],
        PrometheusType.Histogram => [Name, Name + "_bucket", Name + "_sum", Name + "_count"],
        _ => [Name],
    };

    /// <summary>The Prometheus type of a metric, or <see cref="PrometheusType.Unsupported"/>.</summary>
    public static PrometheusType TypeOf(MetricType metricType) => metricType switch
    {
        MetricType.LongSum or MetricType.DoubleSum => PrometheusType.Counter,
        MetricType.LongSumNonMonotonic or MetricType.DoubleSumNonMonotonic => PrometheusType.Gauge,
        MetricType.LongGauge or MetricType.DoubleGauge => PrometheusType.Gauge,
        MetricType.Histogram or MetricType.ExponentialHistogram => PrometheusType.Histogram,
        _ => PrometheusType.Unsupported,
    };

    public static PrometheusMetricFamily Create(Metric metric)
    {
        PrometheusType type = TypeOf(metric.MetricType);
        string name = ExportedNames.MetricName(metric.Name, metric.Unit, ToExportedKind(type));

        var scopeLabels = new List<KeyValuePair<string, string>> { new(ExportedNames.ScopeNameLabel, metric.MeterName) };
        if (!string.IsNullOrEmpty(metric.MeterVersion))
        {
            scopeLabels.Add(new(ExportedNames.ScopeVersionLabel, metric.MeterVersion));
        }

        if (metric.MeterTags is { } meterTags)
        {
            foreach (KeyValuePair<string, object?> tag in meterTags)
            {
                scopeLabels.Add(new(ExportedNames.SanitizeLabelName(ExportedNames.ScopeLabelPrefix + tag.Key), ExportedNames.FormatLabelValue(tag.Value)));
            }
        }

        return new PrometheusMetricFamily(name, type, string.IsNullOrEmpty(metric.Description) ? null : metric.Description, ExportedNames.UnitSuffix(metric.Unit), [.. scopeLabels]);
    }

    private static ExportedKind ToExportedKind(PrometheusType type) => type switch
    {
        PrometheusType.Counter => ExportedKind.Counter,
        PrometheusType.Histogram => ExportedKind.Histogram,
        PrometheusType.Summary => ExportedKind.Summary,
        _ => ExportedKind.Gauge,
    };
}
