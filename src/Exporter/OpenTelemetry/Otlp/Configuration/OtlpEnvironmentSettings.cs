using Microsoft.Extensions.Configuration;

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

    public static void Apply(IConfiguration configuration, ScalableMetricsOtlpOptions options)
    {
        if (configuration[Prefix + "ENDPOINT"] is { Length: > 0 } baseEndpoint
            && OtlpSettingParser.TryUri(options, Prefix + "ENDPOINT", baseEndpoint, out Uri? baseUri))
        {
            options.BaseEndpoint = baseUri;
        }

        if (configuration[MetricsPrefix + "ENDPOINT"] is { Length: > 0 } endpoint
            && OtlpSettingParser.TryUri(options, MetricsPrefix + "ENDPOINT", endpoint, out Uri? uri))
        {
            options.Endpoint = uri;
        }

        foreach (string prefix in (ReadOnlySpan<string>)[Prefix, MetricsPrefix])
        {
            if (configuration[prefix + "HEADERS"] is { Length: > 0 } headers)
            {
                OtlpSettingParser.AddHeaders(options, prefix + "HEADERS", headers);
            }

            if (configuration[prefix + "PROTOCOL"] is { Length: > 0 } protocol)
            {
                ApplyProtocol(options, prefix + "PROTOCOL", protocol);
            }

            if (configuration[prefix + "TIMEOUT"] is { Length: > 0 } timeout
                && OtlpSettingParser.TryMilliseconds(options, prefix + "TIMEOUT", timeout, out TimeSpan value))
            {
                options.Timeout = value;
            }

            if (configuration[prefix + "COMPRESSION"] is { Length: > 0 } compression)
            {
                ApplyCompression(options, prefix + "COMPRESSION", compression);
            }
        }

        if (configuration["OTEL_METRIC_EXPORT_INTERVAL"] is { Length: > 0 } interval
            && OtlpSettingParser.TryMilliseconds(options, "OTEL_METRIC_EXPORT_INTERVAL", interval, out TimeSpan intervalValue))
        {
            options.ExportInterval = intervalValue;
        }

        if (configuration["OTEL_METRIC_EXPORT_TIMEOUT"] is { Length: > 0 } exportTimeout
            && OtlpSettingParser.TryMilliseconds(options, "OTEL_METRIC_EXPORT_TIMEOUT", exportTimeout, out TimeSpan exportTimeoutValue))
        {
            options.ExportTimeout = exportTimeoutValue;
        }

        if (configuration[MetricsPrefix + "TEMPORALITY_PREFERENCE"] is { Length: > 0 } temporality)
        {
            ApplyTemporality(options, MetricsPrefix + "TEMPORALITY_PREFERENCE", temporality);
        }
    }

    private static void ApplyProtocol(ScalableMetricsOtlpOptions options, string key, string text)
    {
        switch (text.Trim().ToLowerInvariant())
        {
            case "http/protobuf":
                options.Protocol = OtlpProtocol.HttpProtobuf;
                break;
            case "grpc":
                options.Protocol = OtlpProtocol.Grpc;
                break;
            default:
                options.Problems.Add($"{key} '{text}' is not supported: use http/protobuf or grpc.");
                break;
        }
    }

    private static void ApplyCompression(ScalableMetricsOtlpOptions options, string key, string text)
    {
        switch (text.Trim().ToLowerInvariant())
        {
            case "none":
                options.Compression = OtlpCompression.None;
                break;
            case "gzip":
                options.Compression = OtlpCompression.Gzip;
                break;
            default:
                options.Problems.Add($"{key} '{text}' is not supported: use none or gzip.");
                break;
        }
    }

    // OpenTelemetry .NET's LowMemory is delta for counters and histograms, as delta is, and differs
    // from it only for observable counters (cumulative there); with two temporalities, delta here.
    private static void ApplyTemporality(ScalableMetricsOtlpOptions options, string key, string text)
    {
        switch (text.Trim().ToLowerInvariant())
        {
            case "cumulative":
                options.Temporality = OtlpTemporality.Cumulative;
                break;
            case "delta":
            case "lowmemory":
                options.Temporality = OtlpTemporality.Delta;
                break;
            default:
                options.Problems.Add($"{key} '{text}' is not supported: use cumulative, delta or lowmemory.");
                break;
        }
    }
}
