using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;
using ScalableMetrics.Diagnostics;

namespace ScalableMetrics.Exporter.Tests.Hosting;

/// <summary>The line the host logs at start: which write path the registries use, and why.</summary>
public sealed class WritePathLogTests
{
    [Fact]
    public async Task TheHostLogsTheRegistrysWritePathAndWhyOnceAtStart()
    {
        var logs = new ListLogger();
        using IHost host = BuildHost(logs, o => o.Registry.Strategy = PartitionStrategy.PerThread);

        await host.StartAsync();
        await host.StopAsync();

        var line = Assert.Single(logs.Events, e => e.EventId.Id == 41);
        Assert.Equal(LogLevel.Information, line.Level);
        MetricRegistry registry = host.Services.GetRequiredService<MetricRegistry>();
        Assert.Equal(
            $"ScalableMetrics write path: PerThread, {registry.PartitionCount} partitions, for the registry of meter 'ScalableMetrics'. PartitionStrategy.PerThread was asked for. Regions for {registry.PartitionCount} thread indexes to start, more as threads take indexes.",
            line.Message);
    }

    [Fact]
    public async Task TheListenedMetersRegistriesShareTheLineAsTheyShareTheOptions()
    {
        var logs = new ListLogger();
        using IHost host = BuildHost(logs, o => o.AddMeter("Orders.*", "System.Runtime"));

        await host.StartAsync();
        await host.StopAsync();

        var line = Assert.Single(logs.Events, e => e.EventId.Id == 41);
        MetricRegistry registry = host.Services.GetRequiredService<MetricRegistry>();
        Assert.Contains($"ScalableMetrics write path: {registry.WritePath}, ", line.Message, StringComparison.Ordinal);
        Assert.Contains("and the registries of the meters listened to (Orders.*, System.Runtime). ", line.Message, StringComparison.Ordinal);
        Assert.Contains($". {registry.WritePathReason} ", line.Message, StringComparison.Ordinal);
        Assert.EndsWith(registry.PartitionReason, line.Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task ThePerProcessorLineSaysWhichProcessorsThePartitionsFollowAndWhereOthersGo()
    {
        var logs = new ListLogger();
        using IHost host = BuildHost(logs, o => o.Registry.Strategy = PartitionStrategy.PerProcessor);

        await host.StartAsync();
        await host.StopAsync();

        string message = Assert.Single(logs.Events, e => e.EventId.Id == 41).Message;
        MetricRegistry registry = host.Services.GetRequiredService<MetricRegistry>();
        if (registry.WritePath == WritePath.RestartableSequence)
        {
            Assert.Contains($"{registry.PartitionCount} regions by ", message, StringComparison.Ordinal);
            Assert.Contains("adds atomically to the overflow region", message, StringComparison.Ordinal);
        }
        else if (registry.WritePath == WritePath.InterlockedProcessorId)
        {
            Assert.Contains($"{registry.PartitionCount} partitions for ", message, StringComparison.Ordinal);
        }

        if (OperatingSystem.IsLinux() && registry.WritePath != WritePath.PerThread)
        {
            Assert.Contains("affinity ", message, StringComparison.Ordinal);
        }
    }

    private static IHost BuildHost(ListLogger logs, Action<ScalableMetricsOptions> configure)
    {
        HostApplicationBuilder builder = Host.CreateApplicationBuilder();
        builder.Logging.ClearProviders().AddProvider(new OneLoggerProvider(logs));
        builder.AddScalableMetrics(configure);
        return builder.Build();
    }

    private sealed class OneLoggerProvider(ILogger logger) : ILoggerProvider
    {
        public ILogger CreateLogger(string categoryName) => logger;

        public void Dispose()
        {
        }
    }
}
