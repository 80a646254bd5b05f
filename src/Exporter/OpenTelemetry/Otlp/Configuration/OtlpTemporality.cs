namespace ScalableMetrics.Exporter;

/// <summary>
/// The aggregation temporality of the sums and histograms an OTLP export carries: OTLP's
/// <c>AggregationTemporality</c>, and <c>OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE</c>'s
/// <c>cumulative</c> and <c>delta</c>.
/// </summary>
/// <remarks>After the OpenTelemetry specification's delta temporality preference: with
/// <see cref="Delta"/>, counters, observable counters, histograms, exponential histograms and
/// operations go out as the change since the last export the receiver accepted; up-down counters
/// stay cumulative and gauges have no temporality.</remarks>
public enum OtlpTemporality
{
    /// <summary>Every data point carries the total since its instrument was created (the default).</summary>
    Cumulative = 0,

    /// <summary>Sums and histograms carry the change since the last accepted export.</summary>
    Delta = 1,
}
