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
        Apply<Uri?>(section, options, nameof(ScalableMetricsOtlpOptions.Endpoint), OtlpSettingParser.TryUri, value => options.Endpoint = value);
        Apply<OtlpProtocol>(section, options, nameof(ScalableMetricsOtlpOptions.Protocol), OtlpSettingParser.TryEnum, value => options.Protocol = value);
        Apply<OtlpCompression>(section, options, nameof(ScalableMetricsOtlpOptions.Compression), OtlpSettingParser.TryEnum, value => options.Compression = value);
        Apply<OtlpTemporality>(section, options, nameof(ScalableMetricsOtlpOptions.Temporality), OtlpSettingParser.TryEnum, value => options.Temporality = value);
        Apply<TimeSpan>(section, options, nameof(ScalableMetricsOtlpOptions.Timeout), OtlpSettingParser.TryTimeSpan, value => options.Timeout = value);
        Apply<TimeSpan>(section, options, nameof(ScalableMetricsOtlpOptions.ExportInterval), OtlpSettingParser.TryTimeSpan, value => options.ExportInterval = value);
        Apply<TimeSpan>(section, options, nameof(ScalableMetricsOtlpOptions.ExportTimeout), OtlpSettingParser.TryTimeSpan, value => options.ExportTimeout = value);
        Apply<string>(section, options, nameof(ScalableMetricsOtlpOptions.CertificateFile), OtlpSettingParser.TryFile, value => options.CertificateFile = value);
        Apply<string>(section, options, nameof(ScalableMetricsOtlpOptions.ClientCertificateFile), OtlpSettingParser.TryFile, value => options.ClientCertificateFile = value);
        Apply<string>(section, options, nameof(ScalableMetricsOtlpOptions.ClientKeyFile), OtlpSettingParser.TryFile, value => options.ClientKeyFile = value);
        Apply<int>(section, options, nameof(ScalableMetricsOtlpOptions.MaxRequestBytes), OtlpSettingParser.TryInt, value => options.MaxRequestBytes = value);

        foreach (IConfigurationSection header in section.GetSection(nameof(ScalableMetricsOtlpOptions.Headers)).GetChildren())
        {
            if (header.Value is not null)
            {
                options.Headers[header.Key] = header.Value;
            }
        }
    }

    // The option's key in the section, parsed and set where it is given.
    private static void Apply<T>(IConfigurationSection section, ScalableMetricsOtlpOptions options, string name, OtlpSettingParser.Parser<T> parse, Action<T> set) =>
        OtlpSettingParser.Apply(options, Key(name), section[name], parse, set);

    private static string Key(string name) => SectionPath + ":" + name;
}
