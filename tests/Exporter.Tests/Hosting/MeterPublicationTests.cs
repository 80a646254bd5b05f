using System.Diagnostics.Metrics;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using ScalableMetrics.Exporter.Hosting;

namespace ScalableMetrics.Exporter.Tests.Hosting;

/// <summary>The host publishes the registry's instruments to <see cref="MeterListener"/>s by default, under its meter name; one switch turns it off, and the OpenTelemetry bridge replaces it.</summary>
public sealed class MeterPublicationTests
{
    [Fact]
    public async Task ByDefaultAListenerSeesTheRegistrysCounterAndHistogramUnderItsMeterName()
    {
        string meterName = "test.publication." + Guid.NewGuid().ToString("N");
        using IHost host = await StartAsync(o => o.MeterName = meterName);
        MetricRegistry registry = host.Services.GetRequiredService<MetricRegistry>();
        registry.CreateCounter("test.requests").Add(3);
        registry.CreateHistogram("test.latency", "s");

        var seen = new List<(string Name, Type Type)>();
        using var listener = new MeterListener
        {
            InstrumentPublished = (instrument, _) =>
            {
                if (instrument.Meter.Name == meterName)
                {
                    seen.Add((instrument.Name, instrument.GetType().GetGenericTypeDefinition()));
                }
            },
        };
        listener.Start();

        Assert.NotNull(host.Services.GetRequiredService<RegistryMeterPublication>().Publisher);
        Assert.Contains(("test.requests", typeof(ObservableCounter<>)), seen);
        Assert.Contains(("test.latency", typeof(Histogram<>)), seen);
    }

    [Fact]
    public async Task TheSwitchTurnsThePublicationOff()
    {
        string meterName = "test.publication." + Guid.NewGuid().ToString("N");
        using IHost host = await StartAsync(o =>
        {
            o.MeterName = meterName;
            o.PublishToMeterListeners = false;
        });
        host.Services.GetRequiredService<MetricRegistry>().CreateCounter("test.requests").Add(3);
        int published = 0;
        using var listener = new MeterListener { InstrumentPublished = (instrument, _) => published += instrument.Meter.Name == meterName ? 1 : 0 };
        listener.Start();

        Assert.Null(host.Services.GetRequiredService<RegistryMeterPublication>().Publisher);
        Assert.Equal(0, published);
    }

    [Fact]
    public async Task WithTheOpenTelemetryBridgeTheHostDoesNotPublishASecondMeter()
    {
        string meterName = "test.publication." + Guid.NewGuid().ToString("N");
        using IHost host = await StartAsync(o =>
        {
            o.MeterName = meterName;
            o.UseOpenTelemetry();
        });
        host.Services.GetRequiredService<MetricRegistry>().CreateCounter("test.requests").Add(3);
        var meters = new List<Meter>();
        using var listener = new MeterListener
        {
            InstrumentPublished = (instrument, _) =>
            {
                if (instrument.Meter.Name == meterName && !meters.Contains(instrument.Meter))
                {
                    meters.Add(instrument.Meter);
                }
            },
        };
        listener.Start();

        Assert.Null(host.Services.GetRequiredService<RegistryMeterPublication>().Publisher);
        Assert.Single(meters);
    }

    private static async Task<IHost> StartAsync(Action<ScalableMetricsOptions> configure)
    {
        HostApplicationBuilder builder = Host.CreateApplicationBuilder();
        builder.Services.AddScalableMetrics(o =>
        {
            o.ExportSelfMetrics = false;
            configure(o);
        });
        IHost host = builder.Build();
        await host.StartAsync();
        return host;
    }
}
