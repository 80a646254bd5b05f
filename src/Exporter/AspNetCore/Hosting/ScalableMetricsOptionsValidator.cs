using ScalableMetrics.Exporter.Prometheus.Scraping;

namespace ScalableMetrics.Exporter.Hosting;

/// <summary>Rejects options the registry or the meter would throw on, naming every problem at once.</summary>
internal sealed class ScalableMetricsOptionsValidator : IValidateOptions<ScalableMetricsOptions>
{
    // How the messages name a registry setting: as its configuration key under the section.
    private const string RegistryKey = nameof(ScalableMetricsOptions.Registry) + ":";

    public ValidateOptionsResult Validate(string? name, ScalableMetricsOptions options)
    {
        var failures = new List<string>();
        if (string.IsNullOrWhiteSpace(options.MeterName))
        {
            failures.Add($"{nameof(ScalableMetricsOptions.MeterName)} must not be empty.");
        }

        for (int i = 0; i < options.Meters.Count; i++)
        {
            if (string.IsNullOrWhiteSpace(options.Meters[i]))
            {
                failures.Add($"{nameof(ScalableMetricsOptions.Meters)}[{i}] must not be empty.");
            }
        }

        if (!Enum.IsDefined(options.NameTranslation))
        {
            failures.Add($"{nameof(ScalableMetricsOptions.NameTranslation)} '{options.NameTranslation}' is not a defined {nameof(PrometheusNameTranslation)}.");
        }

        MetricRegistryOptions registry = options.Registry;
        if (!Enum.IsDefined(registry.Strategy))
        {
            failures.Add($"{RegistryKey}{nameof(MetricRegistryOptions.Strategy)} '{registry.Strategy}' is not a defined {nameof(PartitionStrategy)}.");
        }

        if (registry.MaxSeriesPerInstrument < 2)
        {
            failures.Add($"{RegistryKey}{nameof(MetricRegistryOptions.MaxSeriesPerInstrument)} must be at least 2; it is {registry.MaxSeriesPerInstrument}.");
        }

        if (registry.RemoveSeriesIdleForCollections < 1)
        {
            failures.Add($"{RegistryKey}{nameof(MetricRegistryOptions.RemoveSeriesIdleForCollections)} must be at least 1, or absent for no idle expiry; it is {registry.RemoveSeriesIdleForCollections}.");
        }

        if (registry.MaxInstruments < 1)
        {
            failures.Add($"{RegistryKey}{nameof(MetricRegistryOptions.MaxInstruments)} must be at least 1; it is {registry.MaxInstruments}.");
        }

        if (options.ScrapeTimeout <= TimeSpan.Zero || options.ScrapeTimeout > ScrapeTimeoutHeader.Longest)
        {
            failures.Add($"{nameof(ScalableMetricsOptions.ScrapeTimeout)} must be positive and at most one day; it is {options.ScrapeTimeout}.");
        }

        if (options.ScrapeListener is not null && ScrapeListenerOptionsCheck.Problem(options.ScrapeListener) is string listenerProblem)
        {
            failures.Add(listenerProblem);
        }

        if (failures.Count == 0)
        {
            // The registry's own checks (tag limits, a partition count this machine can use), so
            // that the rules live in one place: creating a registry allocates no slot yet.
            try
            {
                _ = new MetricRegistry(options.Registry);
            }
            catch (ArgumentException e)
            {
                failures.Add(e.Message);
            }
        }

        return failures.Count == 0 ? ValidateOptionsResult.Success : ValidateOptionsResult.Fail(failures);
    }
}
