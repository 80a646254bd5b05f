using System.Text;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using OpenTelemetry;
using OpenTelemetry.Metrics;
using ScalableMetrics.Exporter.OpenTelemetry;

namespace ScalableMetrics.Exporter.Tests.OpenTelemetry;

/// <summary>
/// OpenTelemetry's limits set from the registry's: a reader of the <c>MeterProvider</c> (an OTLP
/// exporter, say; here a second Prometheus exporter) sees exactly the registry's series, with no
/// cap and no overflow series of OpenTelemetry's own.
/// </summary>
public sealed class OpenTelemetryLimitsTests
{
    private const int MaxSeries = 10;
    private const int TagSets = MaxSeries + 5;

    [Fact]
    public async Task TheCardinalityLimitLetsEveryRegistrySeriesThroughAndAddsNoOverflowOfItsOwn()
    {
        IReadOnlyList<PrometheusSample> samples = PrometheusText.Parse(await ReadThroughOpenTelemetry(OpenTelemetryLimits.CardinalityLimit(MaxSeries)));

        // The registry keeps MaxSeries tag sets and sends the other five to its overflow series.
        Assert.Equal(MaxSeries + 1, samples.Count);
        Assert.Equal(TagSets, samples.Sum(s => s.NumericValue));
        Assert.Equal("5", PrometheusText.Single(samples, "limited_total", ("otel_metric_overflow", "true")).Value);
        Assert.All(Enumerable.Range(0, MaxSeries), i => Assert.Equal("1", PrometheusText.Single(samples, "limited_total", ("n", i.ToString(System.Globalization.CultureInfo.InvariantCulture))).Value));
    }

    [Fact]
    public async Task AnInstrumentWhoseViewRaisesItsLimitCrossesWithEverySeriesAndNoOverflowOfOpenTelemetrysOwn()
    {
        // A view's CardinalityLimit is the instrument's one series limit (docs/views.md); the bridge's
        // readers see exactly the registry's series, with no overflow series of OpenTelemetry's own
        // (docs/opentelemetry.md; AddScalableMetricsInstrumentation).
        const int ViewLimit = 2 * MaxSeries;
        var exporter = new PrometheusPullExporter();
        var services = new ServiceCollection();
        services.AddScalableMetrics(o =>
        {
            o.MeterName = "test.limits." + Guid.NewGuid().ToString("N");
            o.Registry.MaxSeriesPerInstrument = MaxSeries;
            o.Registry.Views.Add(new MetricView { Instrument = "widened", CardinalityLimit = ViewLimit });
            o.ConfigureMeterProvider(b => b.AddReader(new BaseExportingMetricReader(exporter)));
        });
        await using ServiceProvider provider = services.BuildServiceProvider();
        foreach (IHostedService hosted in provider.GetServices<IHostedService>())
        {
            await hosted.StartAsync(CancellationToken.None);
        }

        PartitionedCounter counter = provider.GetRequiredService<MetricRegistry>().CreateCounter("widened");
        for (int i = 0; i < TagSets; i++)
        {
            counter.Add(1, new KeyValuePair<string, object?>("n", i));
        }

        IReadOnlyList<PrometheusSample> samples = PrometheusText.Parse(Encoding.UTF8.GetString(await exporter.ScrapeAsync()))
            .Where(s => s.Name == "widened_total").ToList();

        // The registry keeps all 15 tag sets (under its view's limit of 20): no overflow series.
        Assert.Equal([], samples.Where(s => s.Labels.ContainsKey("otel_metric_overflow")).Select(s => s.Value));
        Assert.Equal(TagSets, samples.Count);
    }

    private static async Task<string> ReadThroughOpenTelemetry(int cardinalityLimit)
    {
        var registry = new MetricRegistry(new MetricRegistryOptions { MaxSeriesPerInstrument = MaxSeries });
        string meterName = "test.limits." + Guid.NewGuid().ToString("N");
        using var bridge = new MeterBridge(registry, meterName);
        var exporter = new PrometheusPullExporter();
        using MeterProvider provider = Sdk.CreateMeterProviderBuilder()
            .AddMeter(meterName)
            .AddView(instrument => instrument.Meter.Name == meterName ? new MetricStreamConfiguration { CardinalityLimit = cardinalityLimit } : null)
            .AddReader(new BaseExportingMetricReader(exporter))
            .Build();
        PartitionedCounter counter = registry.CreateCounter("limited");
        for (int i = 0; i < TagSets; i++)
        {
            counter.Add(1, new KeyValuePair<string, object?>("n", i));
        }

        return Encoding.UTF8.GetString(await exporter.ScrapeAsync());
    }
}
