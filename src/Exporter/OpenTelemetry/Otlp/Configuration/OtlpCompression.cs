namespace ScalableMetrics.Exporter;

/// <summary>How the OTLP exporter compresses its request bodies (<see cref="ScalableMetricsOtlpOptions.Compression"/>).</summary>
public enum OtlpCompression
{
    /// <summary>Bodies are sent as they are (<c>none</c>).</summary>
    None = 0,

    /// <summary>Bodies are gzipped (<c>gzip</c>): <c>Content-Encoding: gzip</c> over HTTP,
    /// <c>grpc-encoding: gzip</c> and compressed messages over gRPC.</summary>
    Gzip = 1,
}
