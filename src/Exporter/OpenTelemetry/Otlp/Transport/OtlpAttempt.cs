namespace ScalableMetrics.Exporter.OpenTelemetry.Otlp.Transport;

/// <summary>What one request of an export came to.</summary>
/// <param name="Outcome">Whether the receiver took the data, may take it if asked again, or refused it.</param>
/// <param name="Cause">A short, stable key of what went wrong (<c>HTTP 503</c>, <c>timeout</c>), empty
/// when nothing did: failures are logged once per cause.</param>
/// <param name="Detail">What went wrong, for the log: the receiver's message where it sent one.</param>
internal sealed record OtlpAttempt(OtlpOutcome Outcome, string Cause, string Detail)
{
    public static readonly OtlpAttempt Accepted = new(OtlpOutcome.Accepted, string.Empty, string.Empty);

    /// <summary>How long the receiver asked to be left alone (<c>Retry-After</c>, gRPC's <c>RetryInfo</c>).</summary>
    public TimeSpan? RetryAfter { get; init; }

    /// <summary>The data points the receiver rejected from an accepted request (<c>partial_success</c>).</summary>
    public long RejectedDataPoints { get; init; }

    public Exception? Exception { get; init; }

    /// <summary>Whether the request failed here (an unexpected exception while sending), not by an
    /// answer of the receiver: not retried, but not a refusal either, so its data is kept.</summary>
    public bool Local { get; init; }

    /// <summary>Whether the receiver refused the request with an answer that must not be retried:
    /// its data is dropped.</summary>
    public bool Refused => Outcome == OtlpOutcome.Failed && !Local;
}
