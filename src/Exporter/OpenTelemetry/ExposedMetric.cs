using OpenTelemetry.Metrics;
using ScalableMetrics.Naming;

namespace ScalableMetrics.Exporter.OpenTelemetry;

/// <summary>
/// How one OpenTelemetry metric is exposed, apart from its points: its exported family (named,
/// and its names reserved, by the same rules as the registry's, <see cref="ExportedFamily.Of"/>),
/// its help, and the labels that name its scope (the meter). Computed once per <see cref="Metric"/>,
/// which OpenTelemetry keeps from collection to collection.
/// </summary>
internal sealed class ExposedMetric
{
    private ExposedMetric(ExportedFamily family, string? help, KeyValuePair<string, string>[] scopeLabels)
    {
        Family = family;
        Help = help;
        ScopeLabels = scopeLabels;
    }

    /// <summary>The family the metric is written as.</summary>
    public ExportedFamily Family { get; }

    /// <summary>The metric's description, or null for none.</summary>
    public string? Help { get; }

    /// <summary><c>otel_scope_name</c>, and <c>otel_scope_version</c> and <c>otel_scope_schema_url</c>
    /// if the meter has them, and <c>otel_scope_&lt;key&gt;</c> for the meter's tags, by the rules
    /// every source's scope labels follow (<see cref="Prometheus.Exposition.ScopeLabels"/>): keys
    /// that sanitize alike merged, and a tag that would be one of the labels before them dropped;
    /// names already sanitized, values printed.</summary>
    public KeyValuePair<string, string>[] ScopeLabels { get; }

    /// <summary>The kind a metric of <paramref name="metricType"/> is exported as, or null for a type no format here carries.</summary>
    private static ExportedKind? KindOf(MetricType metricType) => metricType switch
    {
        MetricType.LongSum or MetricType.DoubleSum => ExportedKind.Counter,
        MetricType.LongSumNonMonotonic or MetricType.DoubleSumNonMonotonic => ExportedKind.Gauge,
        MetricType.LongGauge or MetricType.DoubleGauge => ExportedKind.Gauge,
        MetricType.Histogram or MetricType.ExponentialHistogram => ExportedKind.Histogram,
        _ => null,
    };

    /// <summary>How <paramref name="metric"/> is exposed, or null where its type is not carried (<see cref="KindOf"/>).</summary>
    public static ExposedMetric? Create(Metric metric)
    {
        if (KindOf(metric.MetricType) is not { } kind)
        {
            return null;
        }

        KeyValuePair<string, string>[] scopeLabels = Prometheus.Exposition.ScopeLabels.Of(metric.MeterName, metric.MeterVersion, metric.MeterSchemaUrl, metric.MeterTags);
        return new ExposedMetric(ExportedFamily.Of(metric.Name, metric.Unit, kind), string.IsNullOrEmpty(metric.Description) ? null : metric.Description, scopeLabels);
    }
}
