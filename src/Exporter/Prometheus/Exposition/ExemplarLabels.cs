namespace ScalableMetrics.Exporter.Prometheus.Exposition;

/// <summary>
/// The labels of an exemplar: the trace and span of the measurement kept, named as
/// OpenTelemetry's Prometheus compatibility specification names them, their values lowercase hex
/// (32 and 16 digits, W3C Trace Context).
/// </summary>
internal static class ExemplarLabels
{
    /// <summary>The trace id's label: <c>trace_id</c>.</summary>
    public const string TraceId = "trace_id";

    /// <summary>The span id's label: <c>span_id</c>.</summary>
    public const string SpanId = "span_id";
}
