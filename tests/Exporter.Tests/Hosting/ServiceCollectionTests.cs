using System.Text;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Routing;
using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Options;
using ScalableMetrics.Exporter.Hosting;
using ScalableMetrics.Exporter.OpenTelemetry;
using ScalableMetrics.Platform;
using ScalableMetrics.Platform.Rseq;

namespace ScalableMetrics.Exporter.Tests.Hosting;

/// <summary>What <c>AddScalableMetrics</c> registers, and how its options are set and checked.</summary>
public sealed class ServiceCollectionTests
{
    [Fact]
    public async Task RegistersALivePipelineBuiltFromTheOptions()
    {
        string meterName = "test.di." + Guid.NewGuid().ToString("N");
        bool meterProviderConfigured = false;
        var services = new ServiceCollection();
        services.AddScalableMetrics(options =>
        {
            options.MeterName = meterName;
            options.Registry.Strategy = PartitionStrategy.PerThread;
            options.Registry.MaxSeriesPerInstrument = 3;
            options.ConfigureMeterProvider(_ => meterProviderConfigured = true);
        });

        await using ServiceProvider provider = services.BuildServiceProvider(validateScopes: true);
        foreach (IHostedService hosted in provider.GetServices<IHostedService>())
        {
            await hosted.StartAsync(CancellationToken.None);
        }

        Assert.True(meterProviderConfigured);
        MetricRegistry registry = provider.GetRequiredService<MetricRegistry>();
        Assert.Equal(PartitionStrategy.PerThread, registry.Strategy);
        Assert.Equal(meterName, OpenTelemetryPart.Of(provider)!.Bridge.MeterName);
        PartitionedCounter counter = registry.CreateCounter("di.counter");
        for (int i = 0; i < 5; i++)
        {
            counter.Add(10, new KeyValuePair<string, object?>("n", i));
        }

        string text = Encoding.UTF8.GetString(await provider.GetRequiredService<PrometheusScraper>().ScrapeAsync());
        IReadOnlyList<PrometheusSample> samples = PrometheusText.Parse(text);

        // MaxSeriesPerInstrument = 3: three series, then the overflow series takes the rest.
        Assert.Equal(50, samples.Where(s => s.Name == "di_counter_total").Sum(s => s.NumericValue));
        Assert.Equal(4, samples.Count(s => s.Name == "di_counter_total"));
        Assert.Equal("20", PrometheusText.Single(samples, "di_counter_total", ("otel_metric_overflow", "true")).Value);
        Assert.All(samples.Where(s => s.Name != "target_info"), s => Assert.Equal(meterName, s.Labels["otel_scope_name"]));
    }

    [Fact]
    public void AddingTwiceRegistersEachServiceOnceAndRunsBothConfigurations()
    {
        var services = new ServiceCollection();
        services.AddScalableMetrics(o => o.UseOpenTelemetry().Registry.MaxSeriesPerInstrument = 10);
        services.AddScalableMetrics(o => o.UseOpenTelemetry().MeterName = "second");
        services.AddScalableMetrics();

        Assert.Single(services, d => d.ServiceType == typeof(MetricRegistry));
        Assert.Single(services, d => d.ServiceType == typeof(IHostedService));
        Assert.Single(services, d => d.ServiceType == typeof(ScalableMetricsParts));
        using ServiceProvider provider = services.BuildServiceProvider();
        ScalableMetricsOptions options = provider.GetRequiredService<IOptions<ScalableMetricsOptions>>().Value;
        Assert.Equal(10, options.Registry.MaxSeriesPerInstrument);
        Assert.Equal("second", options.MeterName);

        // The OpenTelemetry part (with its PrometheusPullExporter) is built once, however often it is turned on.
        Assert.Single(options.GetFeatures());
        Assert.Single(provider.GetRequiredService<ScalableMetricsParts>().Parts.OfType<OpenTelemetryPart>());
    }

    [Fact]
    public void DefaultsAreDocumentedValues()
    {
        var options = new ScalableMetricsOptions();

        Assert.Equal("ScalableMetrics", options.MeterName);
        Assert.Equal(PartitionStrategy.PerProcessor, options.Registry.Strategy);
        Assert.Equal(2000, options.Registry.MaxSeriesPerInstrument);
        Assert.Equal(1000, options.Registry.MaxInstruments);
        Assert.Null(options.MeterVersion);
        Assert.Empty(options.GetFeatures());
        Assert.Equal(MeterBridge.DefaultMeterName, options.MeterName);
    }

    [Fact]
    public void InvalidOptionsNameEveryProblem()
    {
        var services = new ServiceCollection();
        services.AddScalableMetrics(o =>
        {
            o.MeterName = "";
            o.Registry.MaxSeriesPerInstrument = 1;
            o.Registry.Strategy = (PartitionStrategy)42;
            o.Registry.MaxInstruments = 0;
        });
        using ServiceProvider provider = services.BuildServiceProvider();

        OptionsValidationException error = Assert.Throws<OptionsValidationException>(() => provider.GetRequiredService<MetricRegistry>());

        Assert.Equal(4, error.Failures.Count());
        Assert.Contains("MaxInstruments", error.Message);
        Assert.Contains("MeterName", error.Message);
        Assert.Contains("MaxSeriesPerInstrument", error.Message);
        Assert.Contains("Strategy", error.Message);
    }

    [Fact]
    public async Task HostFailsToStartOnInvalidOptions()
    {
        HostApplicationBuilder builder = Host.CreateApplicationBuilder();
        builder.AddScalableMetrics(o => o.Registry.MaxSeriesPerInstrument = 0);
        using IHost host = builder.Build();

        await Assert.ThrowsAsync<OptionsValidationException>(() => host.StartAsync());
    }

    [Fact]
    public void HostBuilderBindsTheConfigurationSectionThenAppliesTheDelegate()
    {
        HostApplicationBuilder builder = Host.CreateApplicationBuilder();
        builder.Configuration.AddInMemoryCollection(new Dictionary<string, string?>
        {
            ["ScalableMetrics:MeterName"] = "from.configuration",
            ["ScalableMetrics:Registry:MaxSeriesPerInstrument"] = "7",
            ["ScalableMetrics:Registry:Strategy"] = "PerThread",
        });
        HostApplicationBuilder returned = builder.AddScalableMetrics(o => o.Registry.MaxSeriesPerInstrument = 9);
        using IHost host = builder.Build();

        Assert.Same(builder, returned);
        ScalableMetricsOptions options = host.Services.GetRequiredService<IOptions<ScalableMetricsOptions>>().Value;
        Assert.Equal("from.configuration", options.MeterName);
        Assert.Equal(PartitionStrategy.PerThread, options.Registry.Strategy);
        Assert.Equal(9, options.Registry.MaxSeriesPerInstrument);
    }

    [Fact]
    public async Task HostBuilderReadsTheRegistryKeysOfTheReleaseBeforeBelowTheRegistrySectionAndWarns()
    {
        HostApplicationBuilder builder = Host.CreateApplicationBuilder();
        builder.Configuration.AddInMemoryCollection(new Dictionary<string, string?>
        {
            ["ScalableMetrics:MaxSeriesPerInstrument"] = "7",
            ["ScalableMetrics:MaxInstruments"] = "11",
            ["ScalableMetrics:Registry:MaxInstruments"] = "12",
            ["ScalableMetrics:Strategy"] = "PerThread",
        });
        var logs = new ListLogger();
        builder.Logging.ClearProviders().AddProvider(new OneLoggerProvider(logs));
        builder.AddScalableMetrics();
        using IHost host = builder.Build();

        ScalableMetricsOptions options = host.Services.GetRequiredService<IOptions<ScalableMetricsOptions>>().Value;
        Assert.Equal(7, options.Registry.MaxSeriesPerInstrument);
        Assert.Equal(12, options.Registry.MaxInstruments);
        Assert.Equal(PartitionStrategy.PerThread, options.Registry.Strategy);
        Assert.Equal(7, host.Services.GetRequiredService<MetricRegistry>().MaxSeriesPerInstrument);

        await host.StartAsync();
        await host.StopAsync();
        string[] warnings = logs.Messages.Where(m => m.Contains("read for one more release", StringComparison.Ordinal)).ToArray();
        Assert.Equal(3, warnings.Length);
        Assert.Contains(warnings, w => w.Contains("ScalableMetrics:MaxSeriesPerInstrument", StringComparison.Ordinal) && w.Contains("ScalableMetrics:Registry:MaxSeriesPerInstrument", StringComparison.Ordinal));
        Assert.Contains(warnings, w => w.Contains("ScalableMetrics:MaxInstruments", StringComparison.Ordinal));
        Assert.Contains(warnings, w => w.Contains("ScalableMetrics:Strategy", StringComparison.Ordinal));
    }

    [Fact]
    public void RestartableSequencesCanBeTurnedOffFromConfiguration()
    {
        HostApplicationBuilder builder = Host.CreateApplicationBuilder();
        builder.Configuration.AddInMemoryCollection(new Dictionary<string, string?>
        {
            ["ScalableMetrics:Registry:UseRestartableSequences"] = "false",
        });
        builder.AddScalableMetrics();
        using IHost host = builder.Build();

        MetricRegistry registry = host.Services.GetRequiredService<MetricRegistry>();
        Assert.NotEqual(ScalableMetrics.Diagnostics.WritePath.RestartableSequence, registry.WritePath);
        Assert.Equal(ProcessorId.IsSupported ? PartitionStrategy.PerProcessor : PartitionStrategy.PerThread, registry.Strategy);

        using ServiceProvider defaults = new ServiceCollection().AddScalableMetrics().BuildServiceProvider();
        Assert.Equal(RestartableSequence.IsSupported && ProcessorId.IsSupported, defaults.GetRequiredService<MetricRegistry>().WritePath == ScalableMetrics.Diagnostics.WritePath.RestartableSequence);
    }

    [Fact]
    public void MappingTheEndpointWithoutTheServicesSaysWhatIsMissing()
    {
        WebApplication app = WebApplication.CreateBuilder().Build();

        InvalidOperationException error = Assert.Throws<InvalidOperationException>(() => app.MapScalableMetrics());
        Assert.Contains("AddScalableMetrics", error.Message);
    }

    private sealed class OneLoggerProvider(ILogger logger) : ILoggerProvider
    {
        public ILogger CreateLogger(string categoryName) => logger;

        public void Dispose()
        {
        }
    }
}
