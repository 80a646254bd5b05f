using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Options;

namespace ScalableMetrics.Exporter.OpenTelemetry.Otlp;

/// <summary>
/// Fills <see cref="ScalableMetricsOtlpOptions"/> from lowest to highest precedence: the
/// <c>OTEL_*</c> variables, the <c>ScalableMetrics:Otlp</c> section, then the code's
/// <c>AddOtlpExporter</c> settings, each overwriting what it sets. Runs once per options instance.
/// </summary>
internal sealed class OtlpOptionsSetup(IServiceProvider services) : IConfigureOptions<ScalableMetricsOtlpOptions>
{
    public void Configure(ScalableMetricsOtlpOptions options)
    {
        if (services.GetService<IConfiguration>() is { } configuration)
        {
            OtlpEnvironmentSettings.Apply(configuration, options);
            OtlpSectionSettings.Apply(configuration, options);
        }

        ScalableMetricsOptions host;
        try
        {
            host = services.GetRequiredService<IOptions<ScalableMetricsOptions>>().Value;
        }
        catch (OptionsValidationException)
        {
            // Their own validation at start reports them, once; the exporter stays off meanwhile.
            return;
        }

        if (OtlpExporterSwitch.Configurations(host) is { } configurations)
        {
            options.Enabled = true;
            foreach (Action<ScalableMetricsOtlpOptions> configure in configurations)
            {
                configure(options);
            }
        }
    }
}
