using Microsoft.Extensions.Configuration;

namespace ScalableMetrics.Exporter.OpenTelemetry.Otlp.Configuration;

/// <summary>
/// Reads the configuration section <c>ScalableMetrics:Otlp</c> key by key, so that a value that
/// does not parse is reported with its full key by the validator at start rather than thrown by a
/// binder. Durations are <see cref="TimeSpan"/> texts, enums their names. Thread-safe (no state).
/// </summary>
internal static class OtlpSectionSettings
{
    /// <summary>The section's path: <c>ScalableMetrics:Otlp</c>.</summary>
    public const string SectionPath = "ScalableMetrics:Otlp";

    public static void Apply(IConfiguration configuration, ScalableMetricsOtlpOptions options)
    {
        IConfigurationSection section = configuration.GetSection(SectionPath);
        if (Value(section, nameof(ScalableMetricsOtlpOptions.Endpoint)) is { } endpoint
            && OtlpSettingParser.TryUri(options, Key(nameof(ScalableMetricsOtlpOptions.Endpoint)), endpoint, out Uri? uri))
        {
            options.Endpoint = uri;
        }

        if (Value(section, nameof(ScalableMetricsOtlpOptions.Protocol)) is { } protocol
            && OtlpSettingParser.TryEnum(options, Key(nameof(ScalableMetricsOtlpOptions.Protocol)), protocol, out OtlpProtocol protocolValue))
        {
            options.Protocol = protocolValue;
        }

        if (Value(section, nameof(ScalableMetricsOtlpOptions.Compression)) is { } compression
            && OtlpSettingParser.TryEnum(options, Key(nameof(ScalableMetricsOtlpOptions.Compression)), compression, out OtlpCompression compressionValue))
        {
            options.Compression = compressionValue;
        }

        if (Value(section, nameof(ScalableMetricsOtlpOptions.Temporality)) is { } temporality
            && OtlpSettingParser.TryEnum(options, Key(nameof(ScalableMetricsOtlpOptions.Temporality)), temporality, out OtlpTemporality temporalityValue))
        {
            options.Temporality = temporalityValue;
        }

        if (Value(section, nameof(ScalableMetricsOtlpOptions.Timeout)) is { } timeout
            && OtlpSettingParser.TryTimeSpan(options, Key(nameof(ScalableMetricsOtlpOptions.Timeout)), timeout, out TimeSpan timeoutValue))
        {
            options.Timeout = timeoutValue;
        }

        if (Value(section, nameof(ScalableMetricsOtlpOptions.ExportInterval)) is { } interval
            && OtlpSettingParser.TryTimeSpan(options, Key(nameof(ScalableMetricsOtlpOptions.ExportInterval)), interval, out TimeSpan intervalValue))
        {
            options.ExportInterval = intervalValue;
        }

        if (Value(section, nameof(ScalableMetricsOtlpOptions.ExportTimeout)) is { } exportTimeout
            && OtlpSettingParser.TryTimeSpan(options, Key(nameof(ScalableMetricsOtlpOptions.ExportTimeout)), exportTimeout, out TimeSpan exportTimeoutValue))
        {
            options.ExportTimeout = exportTimeoutValue;
        }

        foreach (IConfigurationSection header in section.GetSection(nameof(ScalableMetricsOtlpOptions.Headers)).GetChildren())
        {
            if (header.Value is not null)
            {
                options.Headers[header.Key] = header.Value;
            }
        }
    }

    private static string? Value(IConfigurationSection section, string name) =>
        section[name] is { Length: > 0 } value ? value : null;

    private static string Key(string name) => SectionPath + ":" + name;
}
