using System.Diagnostics.Metrics;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using OpenTelemetry.Metrics;
using ScalableMetrics.Exporter.OpenTelemetry;

namespace ScalableMetrics.Exporter.Tests.Hosting;

/// <summary>Hosts in one process (integration tests run several, each with its own container): each host's scrape and readers read its own registry only, and never another host's.</summary>
public sealed class HostsInOneProcessTests
{
    [Fact]
    public async Task TwoHostsWithAMeterProviderReaderEachExportOnlyTheirOwnRegistrysSeries()
    {
        string meterName = "test.hosts." + Guid.NewGuid().ToString("N");
        var firstExported = new List<MetricSnapshot>();
        var secondExported = new List<MetricSnapshot>();
        using IHost first = await StartedHosts.StartAsync(o => o.ConfigureMeterProvider(b => b.AddInMemoryExporter(firstExported)).MeterName = meterName);
        using IHost second = await StartedHosts.StartAsync(o => o.ConfigureMeterProvider(b => b.AddInMemoryExporter(secondExported)).MeterName = meterName);
        first.Services.GetRequiredService<MetricRegistry>().CreateCounter("hosts.requests").Add(3, new KeyValuePair<string, object?>("host", "first"));
        second.Services.GetRequiredService<MetricRegistry>().CreateCounter("hosts.requests").Add(5, new KeyValuePair<string, object?>("host", "second"));

        Assert.True(OpenTelemetryPart.Of(second.Services)!.MeterProvider.Provider.ForceFlush());

        // Each host's registry is its own: the second host's reader gets the second host's series only.
        MetricSnapshot metric = Assert.Single(secondExported, m => m.MeterName == meterName && m.Name == "hosts.requests");
        Assert.Equal(["host=second: 5"], Points(metric));
    }

    [Fact]
    public async Task AScrapeOfOneHostRunsNoCallbackOfAnotherHostsRegistry()
    {
        string meterName = "test.hosts." + Guid.NewGuid().ToString("N");
        using IHost first = await StartedHosts.StartAsync(o => o.ConfigureMeterProvider(_ => { }).MeterName = meterName);
        using IHost second = await StartedHosts.StartAsync(o => o.ConfigureMeterProvider(_ => { }).MeterName = meterName);
        int firstCallbacks = 0;
        first.Services.GetRequiredService<MetricRegistry>().CreateObservableCounter("hosts.polls", () =>
        {
            Interlocked.Increment(ref firstCallbacks);
            return [new Measurement<long>(1)];
        });

        await second.Services.GetRequiredService<PrometheusScraper>().ScrapeAsync();
        await second.Services.GetRequiredService<PrometheusScraper>().ScrapeAsync();

        Assert.Equal(0, Volatile.Read(ref firstCallbacks));
    }

    [Fact]
    public async Task AnotherHostsScrapesDoNotExpireTheSeriesOfAHostThatWasNotScraped()
    {
        string meterName = "test.hosts." + Guid.NewGuid().ToString("N");
        using IHost first = await StartedHosts.StartAsync(o =>
        {
            o.ConfigureMeterProvider(_ => { }).MeterName = meterName;
            o.Registry.RemoveSeriesIdleForCollections = 1;
        });
        using IHost second = await StartedHosts.StartAsync(o => o.ConfigureMeterProvider(_ => { }).MeterName = meterName);
        first.Services.GetRequiredService<MetricRegistry>().CreateCounter("hosts.jobs").Add(7, new KeyValuePair<string, object?>("job", "a"));

        for (int i = 0; i < 3; i++)
        {
            await second.Services.GetRequiredService<PrometheusScraper>().ScrapeAsync();
        }

        IReadOnlyList<PrometheusSample> scraped = await first.ScrapeSamplesAsync();
        Assert.Equal("7", Assert.Single(scraped, s => s.Name == "hosts_jobs_total").Value);
    }

    [Fact]
    public async Task TwoHostsWithTheTeamsPipelineEachExportOnlyTheirOwnRegistrysSeries()
    {
        // AddScalableMetricsInstrumentation adds the bridge's meter as a ConfigureMeterProvider step does.
        string meterName = "test.hosts.team." + Guid.NewGuid().ToString("N");
        var firstExported = new List<MetricSnapshot>();
        var secondExported = new List<MetricSnapshot>();
        using IHost first = await StartWithTeamPipelineAsync(meterName, firstExported);
        using IHost second = await StartWithTeamPipelineAsync(meterName, secondExported);
        int firstCallbacks = 0;
        first.Services.GetRequiredService<MetricRegistry>().CreateObservableCounter("hosts.polls", () =>
        {
            Interlocked.Increment(ref firstCallbacks);
            return [new Measurement<long>(1)];
        });
        first.Services.GetRequiredService<MetricRegistry>().CreateCounter("hosts.requests").Add(3, new KeyValuePair<string, object?>("host", "first"));
        second.Services.GetRequiredService<MetricRegistry>().CreateCounter("hosts.requests").Add(5, new KeyValuePair<string, object?>("host", "second"));

        Assert.True(second.Services.GetRequiredService<MeterProvider>().ForceFlush());

        Assert.Equal(["host=second: 5"], Points(Assert.Single(secondExported, m => m.MeterName == meterName && m.Name == "hosts.requests")));
        Assert.DoesNotContain(secondExported, m => m.Name == "hosts.polls");
        Assert.Equal(0, Volatile.Read(ref firstCallbacks));

        // The first host's own pipeline still reads its own registry.
        Assert.True(first.Services.GetRequiredService<MeterProvider>().ForceFlush());
        Assert.Equal(["host=first: 3"], Points(Assert.Single(firstExported, m => m.MeterName == meterName && m.Name == "hosts.requests")));
        Assert.Equal(1, Volatile.Read(ref firstCallbacks));
    }

    [Fact]
    public async Task AMeterProviderReaderTakesNoHostsOwnPublicationOfItsRegistry()
    {
        // A host without OpenTelemetry publishes its registry to MeterListeners on a meter of the same name.
        string meterName = "test.hosts.published." + Guid.NewGuid().ToString("N");
        var secondExported = new List<MetricSnapshot>();
        using IHost first = await StartedHosts.StartAsync(o => o.MeterName = meterName);
        using IHost second = await StartedHosts.StartAsync(o => o.ConfigureMeterProvider(b => b.AddInMemoryExporter(secondExported)).MeterName = meterName);
        first.Services.GetRequiredService<MetricRegistry>().CreateCounter("hosts.requests").Add(3, new KeyValuePair<string, object?>("host", "first"));
        second.Services.GetRequiredService<MetricRegistry>().CreateCounter("hosts.requests").Add(5, new KeyValuePair<string, object?>("host", "second"));

        Assert.True(OpenTelemetryPart.Of(second.Services)!.MeterProvider.Provider.ForceFlush());

        Assert.Equal(["host=second: 5"], Points(Assert.Single(secondExported, m => m.MeterName == meterName && m.Name == "hosts.requests")));
    }

    private static List<string> Points(MetricSnapshot metric)
    {
        var points = new List<string>();
        foreach (MetricPoint point in metric.MetricPoints)
        {
            foreach (KeyValuePair<string, object?> tag in point.Tags)
            {
                points.Add($"{tag.Key}={tag.Value}: {point.GetSumLong()}");
            }
        }

        return points;
    }

    private static Task<IHost> StartWithTeamPipelineAsync(string meterName, List<MetricSnapshot> exported) =>
        StartedHosts.StartAsync(
            o => o.MeterName = meterName,
            services => services.AddOpenTelemetry().WithMetrics(metrics => metrics.AddScalableMetricsInstrumentation().AddInMemoryExporter(exported)));
}
