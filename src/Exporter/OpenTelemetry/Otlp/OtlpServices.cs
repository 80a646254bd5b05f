using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.DependencyInjection.Extensions;
using Microsoft.Extensions.Options;

namespace ScalableMetrics.Exporter.OpenTelemetry.Otlp;

/// <summary>
/// Registers what the OTLP exporter needs, off until <c>AddOtlpExporter</c> turns it on: its
/// options (filled by <see cref="OtlpOptionsSetup"/>, validated at start), the named
/// <see cref="HttpClient"/> <see cref="ScalableMetricsOtlpOptions.HttpClientName"/>, and
/// <see cref="OtlpExportService"/>. Called by <c>AddScalableMetrics</c>: the switch is in the
/// options, which are read only when the host starts, after every service is registered.
/// </summary>
internal static class OtlpServices
{
    public static void Add(IServiceCollection services)
    {
        if (services.Any(static descriptor => descriptor.ServiceType == typeof(OtlpExportService)))
        {
            return;
        }

        services.AddOptions<ScalableMetricsOtlpOptions>().ValidateOnStart();
        services.TryAddEnumerable(ServiceDescriptor.Singleton<IConfigureOptions<ScalableMetricsOtlpOptions>, OtlpOptionsSetup>());
        services.TryAddEnumerable(ServiceDescriptor.Singleton<IValidateOptions<ScalableMetricsOtlpOptions>, OtlpOptionsValidator>());

        // The client's own 100 s timeout would cut a longer configured Timeout: the exporter's
        // cancellation tokens time every attempt and export instead.
        // The factory's per-request logs would repeat at every export what the exporter logs once.
        services.AddHttpClient(ScalableMetricsOtlpOptions.HttpClientName, static client => client.Timeout = Timeout.InfiniteTimeSpan)
            .RemoveAllLoggers();

        // Started and stopped by ScalableMetricsHostedService, after and before the rest.
        services.AddSingleton<OtlpExportService>();
    }
}
