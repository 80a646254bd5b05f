namespace ScalableMetrics.Exporter.Prometheus.SelfMetrics;

/// <summary>
/// The tag keys of the self-metrics' series (<see cref="SelfMetricsRegistry"/>): the attributes an
/// OTLP export carries, and the labels a scrape writes.
/// </summary>
internal static class SelfMetricTags
{
    /// <summary>The exposition format a scrape duration is of: <c>text</c>, <c>openmetrics</c> or <c>protobuf</c>.</summary>
    public const string Format = "format";

    /// <summary>The name of the instrument a series count or limit is of.</summary>
    public const string Instrument = "instrument";

    /// <summary>
    /// The name of the scope (meter) of the registry a series describes: a scrape writes it as that
    /// series' <c>otel_scope_name</c>, in place of the self-metrics' own scope.
    /// </summary>
    /// <remarks>Not <c>otel.scope.name</c>: no registry takes a tag that would name a scope label,
    /// and in OTLP, where the scope is the message's, a pipeline that turns OTLP into Prometheus
    /// writes its own <c>otel_scope_name</c> over such an attribute.</remarks>
    public const string ScopeName = "scope.name";

    /// <summary>The version of that scope, where it has one: the scrape's <c>otel_scope_version</c>.</summary>
    public const string ScopeVersion = "scope.version";
}
