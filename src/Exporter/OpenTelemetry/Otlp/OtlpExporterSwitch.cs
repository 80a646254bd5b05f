using System.Runtime.CompilerServices;

namespace ScalableMetrics.Exporter.OpenTelemetry.Otlp;

/// <summary>
/// Which <see cref="ScalableMetricsOptions"/> turned the OTLP exporter on, and the code's settings
/// for it. Kept beside the options rather than in them, so that <see cref="ScalableMetricsOptions"/>
/// (hosting) knows nothing of OTLP, which lives in the OpenTelemetry package. Thread-safe.
/// </summary>
internal static class OtlpExporterSwitch
{
    private static readonly ConditionalWeakTable<ScalableMetricsOptions, List<Action<ScalableMetricsOtlpOptions>>> s_configurations = [];

    public static void TurnOn(ScalableMetricsOptions options, Action<ScalableMetricsOtlpOptions>? configure)
    {
        List<Action<ScalableMetricsOtlpOptions>> configurations = s_configurations.GetOrCreateValue(options);
        lock (configurations)
        {
            if (configure is not null)
            {
                configurations.Add(configure);
            }
        }
    }

    /// <summary>The code's settings in the order they were added, or null when the exporter is off.</summary>
    public static Action<ScalableMetricsOtlpOptions>[]? Configurations(ScalableMetricsOptions options)
    {
        if (!s_configurations.TryGetValue(options, out List<Action<ScalableMetricsOtlpOptions>>? configurations))
        {
            return null;
        }

        lock (configurations)
        {
            return [.. configurations];
        }
    }
}
