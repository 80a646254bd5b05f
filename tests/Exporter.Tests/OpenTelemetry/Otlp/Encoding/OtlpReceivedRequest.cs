namespace ScalableMetrics.Exporter.Tests.OpenTelemetry.Otlp.Encoding;

/// <summary>One request an <see cref="OtlpTestReceiver"/> kept.</summary>
/// <param name="Body">The body, un-gzipped where it came gzipped.</param>
/// <param name="ContentType">Its <c>Content-Type</c>.</param>
/// <param name="Headers">Its headers (case-insensitive keys).</param>
/// <param name="WasGzipped">Whether it came with <c>Content-Encoding: gzip</c>.</param>
public sealed record OtlpReceivedRequest(byte[] Body, string? ContentType, IReadOnlyDictionary<string, string> Headers, bool WasGzipped);
