using System.Text;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;

namespace ScalableMetrics.Exporter.Tests.Hosting;

/// <summary>Started hosts with ScalableMetrics (its self-metrics off), and what their scrape exposes.</summary>
internal static class StartedHosts
{
    /// <summary>A started host; <paramref name="services"/> adds to its services after ScalableMetrics.</summary>
    public static async Task<IHost> StartAsync(Action<ScalableMetricsOptions> configure, Action<IServiceCollection>? services = null)
    {
        HostApplicationBuilder builder = Host.CreateApplicationBuilder();
        builder.Services.AddScalableMetrics(o =>
        {
            o.ExportSelfMetrics = false;
            configure(o);
        });
        services?.Invoke(builder.Services);
        IHost host = builder.Build();
        await host.StartAsync();
        return host;
    }

    /// <summary>The samples of one scrape of the host's <see cref="PrometheusScraper"/>.</summary>
    public static async Task<IReadOnlyList<PrometheusSample>> ScrapeSamplesAsync(this IHost host) =>
        PrometheusText.Parse(Encoding.UTF8.GetString(await host.Services.GetRequiredService<PrometheusScraper>().ScrapeAsync()));
}
