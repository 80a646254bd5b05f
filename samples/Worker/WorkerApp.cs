using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using ScalableMetrics.Exporter;

namespace ScalableMetrics.Samples.Worker;

/// <summary>
/// Builds the worker sample: a generic host (no ASP.NET Core server) running
/// <see cref="PartitionedWorkService"/>, with ScalableMetrics' scrape served by the standalone
/// listener, and pushed over OTLP when <c>OTEL_EXPORTER_OTLP_ENDPOINT</c> (or the metrics one) is set.
/// Separate from <c>Program</c> so that tests can start it in-process.
/// </summary>
public static class WorkerApp
{
    /// <summary>Builds the host; start it with <c>RunAsync</c> or <c>StartAsync</c>.</summary>
    /// <param name="args">Command-line arguments, e.g. <c>--ScalableMetrics:ScrapeListener:Port=9465</c>
    /// (also <c>:Host</c>, <c>:Path</c>, and <c>:WebConfigFile=web-config.yml</c> for TLS and basic
    /// authentication), <c>--Worker:Items=1000000</c> for exactly that many items,
    /// <c>--Worker:Tasks=4</c> for that many worker tasks instead of one per processor,
    /// <c>--Worker:StartWhenFileExists=/tmp/go</c> to wait for that file before the first item.</param>
    /// <returns>The host, not yet started. Once started, it logs the address it serves the scrape at.</returns>
    public static IHost Create(string[] args)
    {
        HostApplicationBuilder builder = Host.CreateApplicationBuilder(args);

        // The listener is on unless configuration set it: 127.0.0.1:9464/metrics by default, the
        // ScalableMetrics:ScrapeListener section (bound first) overriding any of its settings.
        // OTLP push as well when an OTLP endpoint is configured (the variables are in the configuration).
        bool otlp = !string.IsNullOrEmpty(builder.Configuration["OTEL_EXPORTER_OTLP_ENDPOINT"])
            || !string.IsNullOrEmpty(builder.Configuration["OTEL_EXPORTER_OTLP_METRICS_ENDPOINT"]);
        builder.AddScalableMetrics(options =>
        {
            options.ScrapeListener ??= new ScrapeListenerOptions();
            if (otlp)
            {
                options.AddOtlpExporter();
            }
        });
        builder.Services.Configure<PartitionedWorkOptions>(builder.Configuration.GetSection(PartitionedWorkOptions.ConfigurationSectionName));
        builder.Services.AddHostedService<PartitionedWorkService>();
        return builder.Build();
    }
}
