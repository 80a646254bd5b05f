using System.Diagnostics.Metrics;
using System.Text;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using OpenTelemetry;
using OpenTelemetry.Metrics;
using ScalableMetrics.Exporter.OpenTelemetry;

namespace ScalableMetrics.Exporter.Tests.OpenTelemetry;

/// <summary>
/// <c>AddScalableMetrics</c> builds the OpenTelemetry bridge and <c>MeterProvider</c> only when the
/// options turn them on (<c>UseOpenTelemetry()</c> or a <c>ConfigureMeterProvider</c> step).
/// </summary>
public sealed class UseOpenTelemetryTests
{
    [Fact]
    public async Task WithoutItNoBridgeIsBuiltTheHostPublishesTheMeterAndTheScrapeStillWritesTheRegistry()
    {
        string meterName = "test.plain." + Guid.NewGuid().ToString("N");
        await using ServiceProvider provider = await StartedProvider(o => o.MeterName = meterName);
        provider.GetRequiredService<MetricRegistry>().CreateCounter("plain.requests").Add(3);

        Assert.Null(OpenTelemetryPart.Of(provider));

        // Published by the host itself (ScalableMetricsOptions.PublishToMeterListeners), not by a bridge.
        Assert.NotNull(provider.GetRequiredService<ScalableMetrics.Exporter.Hosting.RegistryMeterPublication>().Publisher);
        Assert.Contains(meterName, PublishedMeterNames());
        IReadOnlyList<PrometheusSample> samples = PrometheusText.Parse(Encoding.UTF8.GetString(await provider.GetRequiredService<PrometheusScraper>().ScrapeAsync()));
        Assert.Equal("3", PrometheusText.Single(samples, "plain_requests_total").Value);
    }

    [Fact]
    public async Task UseOpenTelemetryPublishesTheRegistryOnTheBridgesMeter()
    {
        string meterName = "test.bridged." + Guid.NewGuid().ToString("N");
        await using ServiceProvider provider = await StartedProvider(o => o.UseOpenTelemetry().MeterName = meterName);
        provider.GetRequiredService<MetricRegistry>().CreateCounter("bridged.requests").Add(3);

        OpenTelemetryPart part = Assert.IsType<OpenTelemetryPart>(OpenTelemetryPart.Of(provider));
        Assert.Equal(meterName, part.Bridge.MeterName);
        Assert.Contains(meterName, PublishedMeterNames());
    }

    [Fact]
    public async Task AConfigureMeterProviderStepAloneTurnsItOnAndItsMetersJoinTheScrape()
    {
        string otherMeterName = "test.step." + Guid.NewGuid().ToString("N");
        using var otherMeter = new Meter(otherMeterName);
        await using ServiceProvider provider = await StartedProvider(o => o.ConfigureMeterProvider(b => b.AddMeter(otherMeterName)));
        otherMeter.CreateCounter<long>("stepped.requests").Add(4);

        Assert.NotNull(OpenTelemetryPart.Of(provider));
        IReadOnlyList<PrometheusSample> samples = PrometheusText.Parse(Encoding.UTF8.GetString(await provider.GetRequiredService<PrometheusScraper>().ScrapeAsync()));
        Assert.Equal(otherMeterName, PrometheusText.Single(samples, "stepped_requests_total").Labels["otel_scope_name"]);
    }

    [Fact]
    public async Task WithAConfigureMeterProviderStepAScrapeReadsTheRegistryOnce()
    {
        // docs/opentelemetry.md: "with one, each scrape and each export of that reader sums them once each".
        var readerExports = new List<int>();
        await using ServiceProvider provider = await StartedProvider(o =>
        {
            o.MeterName = "test.step.reads." + Guid.NewGuid().ToString("N");
            o.ConfigureMeterProvider(b => b.AddReader(new BaseExportingMetricReader(new CountingExporter(readerExports))));
        });
        int calls = 0;
        provider.GetRequiredService<MetricRegistry>().CreateObservableCounter("step.polled", () =>
        {
            Interlocked.Increment(ref calls);
            return [new Measurement<long>(1)];
        });

        await provider.GetRequiredService<PrometheusScraper>().ScrapeAsync();

        // The step's reader did not export: only the scrape read the registry.
        Assert.Empty(readerExports);
        Assert.Equal(1, calls);
    }

    [Fact]
    public async Task AStepsReaderStillReadsTheBridgeAtItsOwnCollections()
    {
        // Only the scrape's collection of the MeterProvider leaves the bridge's callbacks out.
        var sums = new Dictionary<string, long>();
        var reader = new BaseExportingMetricReader(new SummingExporter(sums));
        await using ServiceProvider provider = await StartedProvider(o =>
        {
            o.MeterName = "test.step.reader." + Guid.NewGuid().ToString("N");
            o.ConfigureMeterProvider(b => b.AddReader(reader));
        });
        int calls = 0;
        provider.GetRequiredService<MetricRegistry>().CreateObservableCounter("step.polled", () =>
        {
            Interlocked.Increment(ref calls);
            return [new Measurement<long>(5)];
        });

        await provider.GetRequiredService<PrometheusScraper>().ScrapeAsync();
        Assert.True(reader.Collect());

        Assert.Equal(5, sums["step.polled"]);
        Assert.Equal(2, calls);
    }

    [Fact]
    public async Task WithTheTeamsPipelineToTheContainerHasOneBridgeWhichTheContainerDisposes()
    {
        string meterName = "test.shared." + Guid.NewGuid().ToString("N");
        var services = new ServiceCollection();
        services.AddScalableMetrics(o => o.UseOpenTelemetry().MeterName = meterName);
        services.AddOpenTelemetry().WithMetrics(metrics => metrics.AddScalableMetricsInstrumentation());
        MeterBridge bridge;
        await using (ServiceProvider provider = services.BuildServiceProvider(validateScopes: true))
        {
            foreach (IHostedService hosted in provider.GetServices<IHostedService>())
            {
                await hosted.StartAsync(CancellationToken.None);
            }

            provider.GetRequiredService<MetricRegistry>().CreateCounter("shared.requests").Add(1);
            bridge = provider.GetRequiredService<MeterBridge>();

            Assert.Same(bridge, OpenTelemetryPart.Of(provider)!.Bridge);
            Assert.Single(PublishedMeterNames(), name => name == meterName);
        }

        Assert.DoesNotContain(meterName, PublishedMeterNames());
    }

    [Fact]
    public void BadInputNamesTheArgument()
    {
        Assert.Equal("options", Assert.Throws<ArgumentNullException>(() => ((ScalableMetricsOptions)null!).UseOpenTelemetry()).ParamName);
        Assert.Equal("configure", Assert.Throws<ArgumentNullException>(() => new ScalableMetricsOptions().ConfigureMeterProvider(null!)).ParamName);
    }

    private sealed class CountingExporter(List<int> exports) : BaseExporter<Metric>
    {
        public override ExportResult Export(in Batch<Metric> batch)
        {
            exports.Add(exports.Count);
            return ExportResult.Success;
        }
    }

    // The sum of each long counter's points at the last export that had it.
    private sealed class SummingExporter(Dictionary<string, long> sums) : BaseExporter<Metric>
    {
        public override ExportResult Export(in Batch<Metric> batch)
        {
            foreach (Metric metric in batch)
            {
                long sum = 0;
                foreach (ref readonly MetricPoint point in metric.GetMetricPoints())
                {
                    sum += metric.MetricType == MetricType.LongSum ? point.GetSumLong() : 0;
                }

                sums[metric.Name] = sum;
            }

            return ExportResult.Success;
        }
    }

    private static async Task<ServiceProvider> StartedProvider(Action<ScalableMetricsOptions> configure)
    {
        var services = new ServiceCollection();
        services.AddScalableMetrics(configure);
        ServiceProvider provider = services.BuildServiceProvider(validateScopes: true);
        foreach (IHostedService hosted in provider.GetServices<IHostedService>())
        {
            await hosted.StartAsync(CancellationToken.None);
        }

        return provider;
    }

    private static List<string> PublishedMeterNames()
    {
        var names = new List<string>();
        using var listener = new MeterListener { InstrumentPublished = (instrument, _) => names.Add(instrument.Meter.Name) };
        listener.Start();
        return names;
    }
}
