namespace ScalableMetrics.Exporter;

/// <summary>
/// The aggregation temporality of the sums and histograms an OTLP export carries: OTLP's
/// <c>AggregationTemporality</c>, and <c>OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE</c>'s
/// <c>cumulative</c>, <c>delta</c> and <c>lowmemory</c>.
/// </summary>
/// <remarks>After the OpenTelemetry specification's temporality preferences (OTLP exporter,
/// "OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE"): with <see cref="Delta"/>, counters,
/// observable counters, histograms, exponential histograms and operations go out as the change
/// since the last export the receiver accepted; with <see cref="LowMemory"/>, the same less the
/// observable counters, which stay cumulative. Up-down counters (observable or not) stay
/// cumulative under both, and gauges have no temporality.</remarks>
public enum OtlpTemporality
{
    /// <summary>Every data point carries the total since its instrument was created (the default).</summary>
    Cumulative = 0,

    /// <summary>Sums and histograms carry the change since the last accepted export.</summary>
    Delta = 1,

    /// <summary>
    /// Synchronous sums and histograms (counters, histograms, exponential histograms, operations)
    /// carry the change since the last accepted export; observable counters and up-down counters
    /// carry their totals, as with <see cref="Cumulative"/>.
    /// </summary>
    /// <remarks>The specification's <c>lowmemory</c> preference (OpenTelemetry .NET's
    /// <c>MetricReaderTemporalityPreference.LowMemory</c>): a delta backend gets the synchronous
    /// instruments' changes, and an observable counter, whose callback reports a total, is sent as
    /// the total it reported.</remarks>
    LowMemory = 2,
}
