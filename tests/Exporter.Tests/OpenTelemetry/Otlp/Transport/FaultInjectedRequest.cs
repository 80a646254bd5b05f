namespace ScalableMetrics.Exporter.Tests.OpenTelemetry.Otlp.Transport;

/// <summary>One request <see cref="FaultInjectingOtlpReceiver"/> got.</summary>
/// <param name="Protocol">The HTTP version (<c>HTTP/1.1</c>, <c>HTTP/2</c>).</param>
/// <param name="Path">The request's path.</param>
/// <param name="Headers">The request's headers, names lower-case.</param>
/// <param name="Raw">The body as it came.</param>
/// <param name="Message">The <c>ExportMetricsServiceRequest</c>: gunzipped, and out of its gRPC frame.</param>
/// <param name="Query">The request's query string, with its <c>?</c>; empty where it has none.</param>
internal sealed record FaultInjectedRequest(string Protocol, string Path, IReadOnlyDictionary<string, string> Headers, byte[] Raw, byte[] Message, string Query = "");
