namespace ScalableMetrics.Exporter.OpenTelemetry.Otlp.Configuration;

/// <summary>
/// Settles <see cref="ScalableMetricsOtlpOptions"/> from lowest to highest precedence: the
/// <c>OTEL_*</c> variables, the <c>ScalableMetrics:Otlp</c> section, then the code's
/// <c>AddOtlpExporter</c> steps, each overwriting what it sets; then validates them.
/// Thread-safe (no state).
/// </summary>
internal static class OtlpOptionsSetup
{
    /// <summary>The exporter's options for the container <paramref name="services"/>, turned on.</summary>
    /// <param name="services">The container: its <see cref="IConfiguration"/>, if any, holds the variables and the section.</param>
    /// <param name="configurations">The code's steps, in order.</param>
    /// <returns>The options, valid.</returns>
    /// <exception cref="OptionsValidationException">A setting is invalid: each failure names the setting (the variable, the key or the option).</exception>
    public static ScalableMetricsOtlpOptions Create(IServiceProvider services, IEnumerable<Action<ScalableMetricsOtlpOptions>> configurations)
    {
        var options = new ScalableMetricsOtlpOptions { Enabled = true };
        if (services.GetService<IConfiguration>() is { } configuration)
        {
            OtlpEnvironmentSettings.Apply(configuration, options);
            OtlpSectionSettings.Apply(configuration, options);
        }

        foreach (Action<ScalableMetricsOtlpOptions> configure in configurations)
        {
            configure(options);
        }

        ValidateOptionsResult result = new OtlpOptionsValidator().Validate(Options.DefaultName, options);
        if (result.Failed)
        {
            throw new OptionsValidationException(Options.DefaultName, typeof(ScalableMetricsOtlpOptions), result.Failures);
        }

        return options;
    }
}
