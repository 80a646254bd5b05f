using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Options;

namespace ScalableMetrics.Exporter.Tests.Hosting;

/// <summary>Every configuration key docs/options.md (and the options' XML docs) name binds the option it names.</summary>
public sealed class OptionsConfigurationKeysTests
{
    [Fact]
    public void EveryDocumentedKeyOfTheSectionBindsItsOption()
    {
        ScalableMetricsOptions options = Bound(new Dictionary<string, string?>
        {
            ["ScalableMetrics:MeterName"] = "m",
            ["ScalableMetrics:MeterVersion"] = "1.2",
            ["ScalableMetrics:ServiceName"] = "svc",
            ["ScalableMetrics:ServiceInstanceId"] = "inst",
            ["ScalableMetrics:ServiceVersion"] = "3.4",
            ["ScalableMetrics:ScrapeTimeout"] = "00:00:07",
            ["ScalableMetrics:EnableOpenMetricsTextCreatedSamples"] = "true",
            ["ScalableMetrics:NameTranslation"] = "NoTranslation",
            ["ScalableMetrics:ExportSelfMetrics"] = "false",
            ["ScalableMetrics:PublishToMeterListeners"] = "false",
            ["ScalableMetrics:Meters:0"] = "A.*",
            ["ScalableMetrics:ScrapeListener:Port"] = "9999",
            ["ScalableMetrics:ScrapeListener:Path"] = "/m",
            ["ScalableMetrics:ScrapeListener:Host"] = "localhost",
        });

        Assert.Equal("m", options.MeterName);
        Assert.Equal("1.2", options.MeterVersion);
        Assert.Equal("svc", options.ServiceName);
        Assert.Equal("inst", options.ServiceInstanceId);
        Assert.Equal("3.4", options.ServiceVersion);
        Assert.Equal(TimeSpan.FromSeconds(7), options.ScrapeTimeout);
        Assert.True(options.EnableOpenMetricsTextCreatedSamples);
        Assert.Equal(PrometheusNameTranslation.NoTranslation, options.NameTranslation);
        Assert.False(options.ExportSelfMetrics);
        Assert.False(options.PublishToMeterListeners);
        Assert.Equal(["A.*"], options.Meters);
        Assert.NotNull(options.ScrapeListener);
        Assert.Equal(9999, options.ScrapeListener.Port);
        Assert.Equal("/m", options.ScrapeListener.Path);
        Assert.Equal("localhost", options.ScrapeListener.Host);
    }

    [Fact]
    public void EveryDocumentedKeyOfTheRegistrySectionBindsItsOption()
    {
        ScalableMetricsOptions options = Bound(new Dictionary<string, string?>
        {
            ["ScalableMetrics:Registry:Strategy"] = "PerThread",
            ["ScalableMetrics:Registry:UseRestartableSequences"] = "false",
            ["ScalableMetrics:Registry:PartitionCount"] = "4096",
            ["ScalableMetrics:Registry:SeriesStorage"] = "Compact",
            ["ScalableMetrics:Registry:MaxPromotedBytes"] = "1048576",
            ["ScalableMetrics:Registry:ExemplarFilter"] = "AlwaysOn",
            ["ScalableMetrics:Registry:MaxSeriesPerInstrument"] = "5",
            ["ScalableMetrics:Registry:MaxInstruments"] = "6",
            ["ScalableMetrics:Registry:MaxTagsPerSeries"] = "7",
            ["ScalableMetrics:Registry:MaxTagKeyLength"] = "8",
            ["ScalableMetrics:Registry:MaxTagValueLength"] = "9",
            ["ScalableMetrics:Registry:RemoveSeriesIdleForCollections"] = "10",
            ["ScalableMetrics:Registry:Views:0:Instrument"] = "x",
            ["ScalableMetrics:Registry:Views:0:Name"] = "y",
        });

        MetricRegistryOptions registry = options.Registry;
        Assert.Equal(PartitionStrategy.PerThread, registry.Strategy);
        Assert.False(registry.UseRestartableSequences);
        Assert.Equal(4096, registry.PartitionCount);
        Assert.Equal(SeriesStorage.Compact, registry.SeriesStorage);
        Assert.Equal(1048576, registry.MaxPromotedBytes);
        Assert.Equal(ExemplarFilter.AlwaysOn, registry.ExemplarFilter);
        Assert.Equal(5, registry.MaxSeriesPerInstrument);
        Assert.Equal(6, registry.MaxInstruments);
        Assert.Equal(7, registry.MaxTagsPerSeries);
        Assert.Equal(8, registry.MaxTagKeyLength);
        Assert.Equal(9, registry.MaxTagValueLength);
        Assert.Equal(10, registry.RemoveSeriesIdleForCollections);
        MetricView view = Assert.Single(registry.Views);
        Assert.Equal("x", view.Instrument);
        Assert.Equal("y", view.Name);
    }

    [Fact]
    public void CallingAddScalableMetricsTwiceBindsTheSectionOnce()
    {
        HostApplicationBuilder builder = Host.CreateApplicationBuilder();
        builder.Configuration.AddInMemoryCollection(new Dictionary<string, string?>
        {
            ["ScalableMetrics:Meters:0"] = "A.*",
            ["ScalableMetrics:Registry:Views:0:Instrument"] = "x",
            ["ScalableMetrics:Registry:Views:0:Name"] = "y",
        });
        builder.AddScalableMetrics();
        builder.AddScalableMetrics(options => options.AddMeter("B"));
        using IHost host = builder.Build();
        ScalableMetricsOptions options = host.Services.GetRequiredService<IOptionsMonitor<ScalableMetricsOptions>>().Get(Options.DefaultName);

        Assert.Equal(["A.*", "B"], options.Meters);
        MetricView view = Assert.Single(options.Registry.Views);
        Assert.Equal("y", view.Name);
    }

    private static ScalableMetricsOptions Bound(Dictionary<string, string?> settings)
    {
        HostApplicationBuilder builder = Host.CreateApplicationBuilder();
        builder.Configuration.AddInMemoryCollection(settings);
        builder.AddScalableMetrics();
        using IHost host = builder.Build();
        return host.Services.GetRequiredService<IOptionsMonitor<ScalableMetricsOptions>>().Get(Options.DefaultName);
    }
}
