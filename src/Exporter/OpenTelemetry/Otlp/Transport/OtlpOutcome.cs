namespace ScalableMetrics.Exporter.OpenTelemetry.Otlp.Transport;

/// <summary>The three ways a request can end, after the OTLP specification's "Failures" sections.</summary>
internal enum OtlpOutcome
{
    /// <summary>The receiver took the request (perhaps rejecting some points, which a retry would not change).</summary>
    Accepted,

    /// <summary>The request may succeed if sent again: throttled, unavailable, unreachable, timed out.</summary>
    Retryable,

    /// <summary>The receiver refused the request; sending it again would not help.</summary>
    Failed,
}
