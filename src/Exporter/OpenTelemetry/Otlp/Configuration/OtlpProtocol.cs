namespace ScalableMetrics.Exporter;

/// <summary>
/// How the OTLP exporter sends its requests (<see cref="ScalableMetricsOtlpOptions.Protocol"/>).
/// Named apart from OpenTelemetry's public <c>OtlpExportProtocol</c>, so that a project using both
/// packages needs no alias.
/// </summary>
public enum OtlpProtocol
{
    /// <summary>OTLP/HTTP with a binary protobuf body (<c>http/protobuf</c>): <c>POST</c> to the
    /// endpoint, by default <c>http://localhost:4318/v1/metrics</c>.</summary>
    HttpProtobuf = 0,

    /// <summary>OTLP/gRPC (<c>grpc</c>): the <c>MetricsService/Export</c> call over HTTP/2, by default
    /// to <c>http://localhost:4317</c>.</summary>
    Grpc = 1,
}
