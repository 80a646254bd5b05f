using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;

namespace ScalableMetrics.Exporter.Hosting;

/// <summary>
/// Builds the <see cref="ScalableMetricsMeterProvider"/> (and with it the bridge) when the host
/// starts, so that collection is live before the first scrape rather than built by it.
/// </summary>
internal sealed class ScalableMetricsHostedService(IServiceProvider services) : IHostedService
{
    public Task StartAsync(CancellationToken cancellationToken)
    {
        services.GetRequiredService<ScalableMetricsMeterProvider>();
        return Task.CompletedTask;
    }

    public Task StopAsync(CancellationToken cancellationToken) => Task.CompletedTask;
}
