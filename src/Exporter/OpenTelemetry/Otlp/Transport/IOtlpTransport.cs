namespace ScalableMetrics.Exporter.OpenTelemetry.Otlp.Transport;

/// <summary>Sends an <c>ExportMetricsServiceRequest</c> one way (OTLP/HTTP or OTLP/gRPC).</summary>
internal interface IOtlpTransport
{
    /// <summary>The receiver's URL, for the log.</summary>
    Uri Endpoint { get; }

    /// <summary>The request's body on the wire (compressed, framed), made once per export and sent by every attempt.</summary>
    ReadOnlyMemory<byte> Prepare(ReadOnlyMemory<byte> request);

    /// <summary>Sends <paramref name="payload"/> once and reads the answer.</summary>
    /// <exception cref="HttpRequestException">The receiver could not be reached or the connection broke before an answer.</exception>
    /// <exception cref="OperationCanceledException"><paramref name="cancellationToken"/> was cancelled.</exception>
    Task<OtlpAttempt> SendAsync(ReadOnlyMemory<byte> payload, CancellationToken cancellationToken);
}
