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
        using IHost host = await StartedHosts.StartAsync(o => o.MeterName = meterName);
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
        using IHost host = await StartedHosts.StartAsync(o =>
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
        using IHost host = await StartedHosts.StartAsync(o =>
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

    [Fact]
    public async Task WithOpenTelemetryAToolsReadOfTheRegistrysMeterDoesNotTakeARemovedSeriesLastValueFromTheScrape()
    {
        string meterName = "test.hosts.tool." + Guid.NewGuid().ToString("N");
        using IHost host = await StartedHosts.StartAsync(o => o.UseOpenTelemetry().MeterName = meterName);
        Assert.True(AddASeriesOfSevenJobsAndRemoveIt(host));

        // The bridge publishes the registry in the host's stead, and with no MeterProvider reading
        // its meter, a tool's read of it is no collection, as the host's own publication's (docs/listening.md).
        Assert.Equal([7], ReadAsATool(meterName, "tool.jobs"));

        IReadOnlyList<PrometheusSample> scraped = await host.ScrapeSamplesAsync();
        Assert.Equal("7", Assert.Single(scraped, s => s.Name == "tool_jobs_total").Value);
    }

    [Fact]
    public async Task WithOpenTelemetryAToolsReadsCountTowardNoIdleExpiry()
    {
        string meterName = "test.hosts.tool." + Guid.NewGuid().ToString("N");
        using IHost host = await StartedHosts.StartAsync(o =>
        {
            o.UseOpenTelemetry().MeterName = meterName;
            o.Registry.RemoveSeriesIdleForCollections = 1;
        });
        host.Services.GetRequiredService<MetricRegistry>().CreateCounter("tool.jobs").Add(7, new KeyValuePair<string, object?>("customer", "idle"));

        for (int i = 0; i < 3; i++)
        {
            Assert.Equal([7], ReadAsATool(meterName, "tool.jobs"));
        }

        IReadOnlyList<PrometheusSample> scraped = await host.ScrapeSamplesAsync();
        Assert.Equal("7", Assert.Single(scraped, s => s.Name == "tool_jobs_total").Value);
    }

    [Fact]
    public async Task WithAMeterProviderReadingTheBridgeAToolsReadOfItsMeterIsACollection()
    {
        // docs/listening.md: once a MeterProvider takes the bridge's meter, its reads are collections,
        // and a tool's read of the meter, which cannot be told from the provider's, is one too.
        string meterName = "test.hosts.tool." + Guid.NewGuid().ToString("N");
        using IHost host = await StartedHosts.StartAsync(o => o.ConfigureMeterProvider(_ => { }).MeterName = meterName);
        Assert.True(AddASeriesOfSevenJobsAndRemoveIt(host));

        // The tool's read was the series' last export: the scrape after it has no sample of it.
        Assert.Equal([7], ReadAsATool(meterName, "tool.jobs"));
        IReadOnlyList<PrometheusSample> scraped = await host.ScrapeSamplesAsync();
        Assert.DoesNotContain(scraped, s => s.Name == "tool_jobs_total");
    }

    // dotnet-counters: a MeterListener of the registry's meter, collecting its observable instruments
    // once; what it measured of the instrument.
    private static List<long> ReadAsATool(string meterName, string instrumentName)
    {
        var measured = new List<long>();
        using var tool = new MeterListener
        {
            InstrumentPublished = (instrument, listener) =>
            {
                if (instrument.Meter.Name == meterName && instrument.Name == instrumentName)
                {
                    listener.EnableMeasurementEvents(instrument);
                }
            },
        };
        tool.SetMeasurementEventCallback<long>((_, value, _, _) => measured.Add(value));
        tool.Start();
        tool.RecordObservableInstruments();
        return measured;
    }

    // A tool.jobs counter with a series of 7 that is then removed; whether the removal took it.
    private static bool AddASeriesOfSevenJobsAndRemoveIt(IHost host)
    {
        PartitionedCounter jobs = host.Services.GetRequiredService<MetricRegistry>().CreateCounter("tool.jobs");
        var customer = new KeyValuePair<string, object?>("customer", "gone");
        jobs.Add(7, customer);
        return jobs.Remove(customer);
    }
}
