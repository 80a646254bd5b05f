namespace ScalableMetrics.Exporter.Hosting;

/// <summary>
/// The registry's settings as the release before named them: directly under the <c>ScalableMetrics</c>
/// configuration section (<c>ScalableMetrics:MaxSeriesPerInstrument</c>) rather than under
/// <c>ScalableMetrics:Registry</c>. Read for one more release, each with a warning in the log.
/// </summary>
internal static partial class LegacyRegistryKeys
{
    // The settings ScalableMetricsOptions held itself before ScalableMetricsOptions.Registry.
    private static readonly string[] s_names =
    [
        nameof(MetricRegistryOptions.Strategy),
        nameof(MetricRegistryOptions.UseRestartableSequences),
        nameof(MetricRegistryOptions.PartitionCount),
        nameof(MetricRegistryOptions.ExemplarFilter),
        nameof(MetricRegistryOptions.MaxSeriesPerInstrument),
        nameof(MetricRegistryOptions.MaxInstruments),
        nameof(MetricRegistryOptions.MaxTagsPerSeries),
        nameof(MetricRegistryOptions.MaxTagKeyLength),
        nameof(MetricRegistryOptions.MaxTagValueLength),
    ];

    /// <summary>Binds the legacy keys found in <paramref name="section"/> into <paramref name="options"/>'
    /// <see cref="ScalableMetricsOptions.Registry"/>, and notes each in <see cref="ScalableMetricsOptions.LegacyRegistryKeys"/>.</summary>
    /// <exception cref="InvalidOperationException">A key's value cannot be converted to its setting's type (as binding throws).</exception>
    public static void Bind(IConfigurationSection section, ScalableMetricsOptions options)
    {
        bool any = false;
        foreach (string name in s_names)
        {
            if (section[name] is not null)
            {
                options.LegacyRegistryKeys.Add(ConfigurationPath.Combine(section.Path, name));
                any = true;
            }
        }

        if (any)
        {
            // Only MetricRegistryOptions' own properties are looked up, so only those keys bind.
            section.Bind(options.Registry);
        }
    }

    /// <summary>Logs a warning for each legacy key <paramref name="options"/> were bound from.</summary>
    public static void Warn(ScalableMetricsOptions options, ILogger logger)
    {
        foreach (string key in options.LegacyRegistryKeys)
        {
            LogLegacyKey(logger, key, key.Insert(key.LastIndexOf(':') + 1, nameof(ScalableMetricsOptions.Registry) + ":"));
        }
    }

    [LoggerMessage(EventId = 40, Level = LogLevel.Warning, Message = "The configuration key {Key} is read for one more release; use {Replacement} instead.")]
    private static partial void LogLegacyKey(ILogger logger, string key, string replacement);
}
