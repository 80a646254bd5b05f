namespace ScalableMetrics.Exporter.Tests.OpenTelemetry.Otlp.Transport;

/// <summary>How <see cref="FaultInjectingOtlpReceiver"/> answers one request.</summary>
internal abstract record OtlpFault
{
    /// <summary>200 (gRPC OK) with an empty <c>ExportMetricsServiceResponse</c>.</summary>
    public static readonly OtlpFault Ok = new Answer(200);

    /// <summary>An HTTP status with a <c>google.rpc.Status</c> body (over gRPC: a gRPC status in the trailers).</summary>
    public sealed record Answer(int Code, string Message = "", TimeSpan? RetryAfter = null, bool RetryAfterAsDate = false) : OtlpFault;

    /// <summary>A gRPC status in the trailers, with a <c>RetryInfo</c> detail when <paramref name="RetryDelay"/> is set.</summary>
    public sealed record Grpc(int Code, string Message = "", TimeSpan? RetryDelay = null) : OtlpFault;

    /// <summary>200 (gRPC OK) with a <c>partial_success</c>.</summary>
    public sealed record PartialSuccess(long Rejected, string Message) : OtlpFault;

    /// <summary>Waits (until the client gives up) before answering OK.</summary>
    public sealed record Slow(TimeSpan Delay) : OtlpFault;

    /// <summary>Answers <paramref name="Code"/> announcing 100 bytes of body, sends 10, then closes the connection.</summary>
    public sealed record CloseMidBody(int Code) : OtlpFault;

    /// <summary>200 with a body of <paramref name="Bytes"/> bytes, more than any answer should be.</summary>
    public sealed record HugeBody(int Bytes) : OtlpFault;

    /// <summary>Reads the request, then closes the connection without an answer.</summary>
    public sealed record CloseWithoutAnswer : OtlpFault;
}
