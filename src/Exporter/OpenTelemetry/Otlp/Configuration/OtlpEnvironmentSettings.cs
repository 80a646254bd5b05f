namespace ScalableMetrics.Exporter.OpenTelemetry.Otlp.Configuration;

/// <summary>
/// Reads OpenTelemetry's <c>OTEL_*</c> exporter variables from the configuration (where the host's
/// environment-variables provider puts them, and where a test can set them without touching the
/// process), after the OpenTelemetry specification's "OpenTelemetry Protocol Exporter" page: the
/// metrics-specific variable wins over the general one. Thread-safe (no state).
/// </summary>
internal static class OtlpEnvironmentSettings
{
    private const string Prefix = "OTEL_EXPORTER_OTLP_";
    private const string MetricsPrefix = "OTEL_EXPORTER_OTLP_METRICS_";

    private static readonly (string, OtlpTemporality)[] s_temporalities = [("cumulative", OtlpTemporality.Cumulative), ("delta", OtlpTemporality.Delta), ("lowmemory", OtlpTemporality.LowMemory)];
    private static readonly (string, OtlpProtocol)[] s_protocols = [("http/protobuf", OtlpProtocol.HttpProtobuf), ("grpc", OtlpProtocol.Grpc)];
    private static readonly (string, OtlpCompression)[] s_compressions = [("none", OtlpCompression.None), ("gzip", OtlpCompression.Gzip)];

    public static void Apply(IConfiguration configuration, ScalableMetricsOtlpOptions options)
    {
        Apply<Uri?>(configuration, options, Prefix + "ENDPOINT", OtlpSettingParser.TryUri, value => options.BaseEndpoint = value);
        Apply<Uri?>(configuration, options, MetricsPrefix + "ENDPOINT", OtlpSettingParser.TryUri, value => options.Endpoint = value);
        foreach (string prefix in (ReadOnlySpan<string>)[Prefix, MetricsPrefix])
        {
            if (configuration[prefix + "HEADERS"] is { Length: > 0 } headers)
            {
                OtlpSettingParser.AddHeaders(options, prefix + "HEADERS", headers);
            }

            Apply<OtlpProtocol>(configuration, options, prefix + "PROTOCOL", TryProtocol, value => options.Protocol = value);
            Apply<TimeSpan>(configuration, options, prefix + "TIMEOUT", OtlpSettingParser.TryTimeoutMilliseconds, value => options.Timeout = value);
            Apply<OtlpCompression>(configuration, options, prefix + "COMPRESSION", TryCompression, value => options.Compression = value);
            Apply<string>(configuration, options, prefix + "CERTIFICATE", OtlpSettingParser.TryFile, value => options.CertificateFile = value);
            Apply<string>(configuration, options, prefix + "CLIENT_CERTIFICATE", OtlpSettingParser.TryFile, value => options.ClientCertificateFile = value);
            Apply<string>(configuration, options, prefix + "CLIENT_KEY", OtlpSettingParser.TryFile, value => options.ClientKeyFile = value);
        }

        Apply<TimeSpan>(configuration, options, "OTEL_METRIC_EXPORT_INTERVAL", OtlpSettingParser.TryMilliseconds, value => options.ExportInterval = value);
        Apply<TimeSpan>(configuration, options, "OTEL_METRIC_EXPORT_TIMEOUT", OtlpSettingParser.TryTimeoutMilliseconds, value => options.ExportTimeout = value);
        Apply<OtlpTemporality>(configuration, options, MetricsPrefix + "TEMPORALITY_PREFERENCE", TryTemporality, value => options.Temporality = value);
    }

    // The variable, parsed and set where it is given.
    private static void Apply<T>(IConfiguration configuration, ScalableMetricsOtlpOptions options, string key, OtlpSettingParser.Parser<T> parse, Action<T> set) =>
        OtlpSettingParser.Apply(options, key, configuration[key], parse, set);

    private static bool TryProtocol(ScalableMetricsOtlpOptions options, string key, string text, out OtlpProtocol value) =>
        OtlpSettingParser.TryChoice<OtlpProtocol>(options, key, text, s_protocols, out value);

    private static bool TryCompression(ScalableMetricsOtlpOptions options, string key, string text, out OtlpCompression value) =>
        OtlpSettingParser.TryChoice<OtlpCompression>(options, key, text, s_compressions, out value);

    private static bool TryTemporality(ScalableMetricsOtlpOptions options, string key, string text, out OtlpTemporality value) =>
        OtlpSettingParser.TryChoice<OtlpTemporality>(options, key, text, s_temporalities, out value);
}
