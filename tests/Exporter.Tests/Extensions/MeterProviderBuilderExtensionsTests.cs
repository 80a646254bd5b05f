using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using OpenTelemetry;
using OpenTelemetry.Metrics;

namespace ScalableMetrics.Exporter.Tests.Extensions;

/// <summary>
/// <c>AddScalableMetricsInstrumentation</c> in a team's own <c>AddOpenTelemetry()</c> pipeline:
/// past the registry's 2,000 series the pipeline's reader gets the registry's series and its one
/// overflow series, none of OpenTelemetry's, whether or not <c>AddScalableMetrics</c> was called
/// and whatever its own <c>MeterProvider</c> reads.
/// </summary>
public sealed class MeterProviderBuilderExtensionsTests
{
    private const int TagSets = MetricRegistryOptions.DefaultMaxSeriesPerInstrument + 500;

    public static TheoryData<string> Setups => ["extension only", "AddScalableMetrics first", "with a ConfigureMeterProvider step", "called twice"];

    [Theory]
    [MemberData(nameof(Setups))]
    public async Task TheTeamsReaderGetsTheRegistrysSeriesAndItsOneOverflowSeries(string setup)
    {
        string meterName = "test.team." + Guid.NewGuid().ToString("N");
        var exported = new List<MetricSnapshot>();
        HostApplicationBuilder builder = Host.CreateApplicationBuilder();
        if (setup != "extension only")
        {
            builder.AddScalableMetrics(o =>
            {
                o.MeterName = meterName;

                // Its own provider then reads the bridge's meter too: a reader of its own, not the team's.
                if (setup == "with a ConfigureMeterProvider step")
                {
                    o.ConfigureMeterProvider(b => b.AddInMemoryExporter(new List<MetricSnapshot>()));
                }
            });
        }
        else
        {
            builder.Services.Configure<ScalableMetricsOptions>(o => o.MeterName = meterName);
        }

        builder.Services.AddOpenTelemetry().WithMetrics(metrics =>
        {
            metrics.AddScalableMetricsInstrumentation().AddInMemoryExporter(exported);
            if (setup == "called twice")
            {
                metrics.AddScalableMetricsInstrumentation();
            }
        });
        using IHost host = builder.Build();
        await host.StartAsync();
        PartitionedCounter counter = host.Services.GetRequiredService<MetricRegistry>().CreateCounter("team.requests");
        for (int i = 0; i < TagSets; i++)
        {
            counter.Add(1, new KeyValuePair<string, object?>("n", i));
        }

        Assert.True(host.Services.GetRequiredService<MeterProvider>().ForceFlush());
        await host.StopAsync();

        MetricSnapshot metric = Assert.Single(exported, m => m.MeterName == meterName);
        Assert.Equal("team.requests", metric.Name);
        Assert.Equal(MetricRegistryOptions.DefaultMaxSeriesPerInstrument + 1, metric.MetricPoints.Count);
        Assert.Equal(TagSets, metric.MetricPoints.Sum(p => p.GetSumLong()));
        MetricPoint overflow = Assert.Single(metric.MetricPoints, p => Tags(p).ContainsKey("otel.metric.overflow"));
        Assert.Equal(500, overflow.GetSumLong());
        Assert.Equal(MetricRegistryOptions.DefaultMaxSeriesPerInstrument, metric.MetricPoints.Select(p => Tags(p).GetValueOrDefault("n")?.ToString()).OfType<string>().Distinct().Count());
    }

    [Fact]
    public async Task TheRegistryIsTheContainersSingletonForBothTheEndpointAndThePipeline()
    {
        HostApplicationBuilder builder = Host.CreateApplicationBuilder();
        builder.AddScalableMetrics();
        builder.Services.AddOpenTelemetry().WithMetrics(metrics => metrics.AddScalableMetricsInstrumentation());
        using IHost host = builder.Build();
        await host.StartAsync();

        Assert.Single(host.Services.GetServices<MetricRegistry>());
        Assert.Single(host.Services.GetServices<MeterBridge>());
        await host.StopAsync();
    }

    [Fact]
    public void ANullBuilderIsRefused() =>
        Assert.Equal("builder", Assert.Throws<ArgumentNullException>(() => ScalableMetricsMeterProviderBuilderExtensions.AddScalableMetricsInstrumentation(null!)).ParamName);

    private static Dictionary<string, object?> Tags(MetricPoint point)
    {
        var tags = new Dictionary<string, object?>();
        foreach (KeyValuePair<string, object?> tag in point.Tags)
        {
            tags[tag.Key] = tag.Value;
        }

        return tags;
    }
}
