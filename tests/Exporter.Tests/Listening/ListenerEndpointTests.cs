using System.Diagnostics.Metrics;
using System.Text;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using ScalableMetrics.Exporter.OpenTelemetry;

namespace ScalableMetrics.Exporter.Tests.Listening;

/// <summary>The listener path through <c>AddScalableMetrics</c>: one aggregation, one export, and the container's meter factory.</summary>
public sealed class ListenerEndpointTests
{
    [Fact]
    public async Task AListenedInstrumentIsExportedOnceWithItsMeterAsScopeEvenWhenTheMeterProviderAddsItsMeter()
    {
        string meterName = "test.endpoint." + Guid.NewGuid().ToString("N");
        var services = new ServiceCollection();
        services.AddMetrics();
        services.AddScalableMetrics(o => o
            .AddMeter(meterName)
            .ConfigureMeterProvider(b => b.AddMeter(meterName)));
        await using ServiceProvider provider = services.BuildServiceProvider(validateScopes: true);
        foreach (IHostedService hosted in provider.GetServices<IHostedService>())
        {
            await hosted.StartAsync(CancellationToken.None);
        }

        using var meter = new Meter(meterName, "1.2");
        Counter<long> counter = meter.CreateCounter<long>("listened.requests", "{request}");
        Histogram<double> duration = meter.CreateHistogram("listened.duration", "s", null, null, new InstrumentAdvice<double> { HistogramBucketBoundaries = [0.1, 1] });
        for (int i = 0; i < 7; i++)
        {
            counter.Add(1, new KeyValuePair<string, object?>("http.route", "/hello"));
            duration.Record(0.5, new KeyValuePair<string, object?>("http.route", "/hello"));
        }

        string text = Encoding.UTF8.GetString(await provider.GetRequiredService<PrometheusScraper>().ScrapeAsync());
        IReadOnlyList<PrometheusSample> samples = PrometheusText.Parse(text);

        PrometheusSample total = Assert.Single(samples, s => s.Name == "listened_requests_total");
        Assert.Equal("7", total.Value);
        Assert.Equal(meterName, total.Labels["otel_scope_name"]);
        Assert.Equal("1.2", total.Labels["otel_scope_version"]);
        Assert.Equal("7", Assert.Single(samples, s => s.Name == "listened_duration_seconds_count").Value);
        Assert.Equal("7", Assert.Single(samples, s => s.Name == "listened_duration_seconds_bucket" && s.Labels["le"] == "1").Value);
        Assert.Equal(1, CountOccurrences(text, "# TYPE listened_requests_total counter") + CountOccurrences(text, "# TYPE listened_requests counter"));

        // The MeterProvider's own part (which the scrape would have left out as a duplicate) does not aggregate it at all.
        string otherMeters = Encoding.UTF8.GetString(await OpenTelemetryPart.Of(provider)!.Exporter.ScrapeAsync());
        Assert.DoesNotContain("listened_", otherMeters, StringComparison.Ordinal);
    }

    [Fact]
    public async Task AMeasurementWithANullTagValueIsScrapedInTheSeriesOfItsOtherTagsOnce()
    {
        string meterName = "test.endpoint.null." + Guid.NewGuid().ToString("N");
        await using ServiceProvider provider = await StartedProvider(meterName);
        using var meter = new Meter(meterName);
        Counter<long> counter = meter.CreateCounter<long>("nulled.requests");
        counter.Add(2, new KeyValuePair<string, object?>("http.route", null));
        counter.Add(3);

        // OpenTelemetry writes http_route="" beside the untagged series, which Prometheus stores as
        // one; here it is one series to begin with.
        string text = Encoding.UTF8.GetString(await provider.GetRequiredService<PrometheusScraper>().ScrapeAsync());
        PrometheusSample total = Assert.Single(PrometheusText.Parse(text), s => s.Name == "nulled_requests_total");
        Assert.Equal("5", total.Value);
        Assert.False(total.Labels.ContainsKey("http_route"));
    }

    [Fact]
    public async Task AnInstrumentWhoseUnitIsOutsideOpenTelemetrysUnitSyntaxIsScrapedUnderOpenTelemetrysName()
    {
        string meterName = "test.endpoint.unit." + Guid.NewGuid().ToString("N");
        await using ServiceProvider provider = await StartedProvider(meterName);
        using var meter = new Meter(meterName);
        meter.CreateGauge<double>("room.temperature", "°C").Record(21.5);
        meter.CreateGauge<double>("outside.temperature", "degrees Celsius").Record(-3);

        // The names OpenTelemetry's Prometheus exporter writes for these units.
        string text = Encoding.UTF8.GetString(await provider.GetRequiredService<PrometheusScraper>().ScrapeAsync());
        IReadOnlyList<PrometheusSample> samples = PrometheusText.Parse(text);
        Assert.Equal("21.5", Assert.Single(samples, s => s.Name == "room_temperature_C").Value);
        Assert.Equal("-3", Assert.Single(samples, s => s.Name == "outside_temperature_degrees_Celsius").Value);
    }

    [Fact]
    public async Task TwoContainersInOneProcessEachTakeOnlyTheirOwnFactorysMeterOfATakenName()
    {
        string meterName = "test.isolation." + Guid.NewGuid().ToString("N");
        await using ServiceProvider first = await StartedProvider(meterName);
        await using ServiceProvider second = await StartedProvider(meterName);
        Counter<long> firstCounter = first.GetRequiredService<IMeterFactory>().Create(meterName).CreateCounter<long>("isolated.requests");
        Counter<long> secondCounter = second.GetRequiredService<IMeterFactory>().Create(meterName).CreateCounter<long>("isolated.requests");

        firstCounter.Add(3);
        secondCounter.Add(5);

        foreach ((ServiceProvider provider, string expected) in new[] { (first, "3"), (second, "5") })
        {
            IReadOnlyList<PrometheusSample> samples = PrometheusText.Parse(Encoding.UTF8.GetString(await provider.GetRequiredService<PrometheusScraper>().ScrapeAsync()));
            Assert.Equal(expected, Assert.Single(samples, s => s.Name == "isolated_requests_total").Value);
        }
    }

    private static async Task<ServiceProvider> StartedProvider(string meterName)
    {
        var services = new ServiceCollection();
        services.AddMetrics();
        services.AddScalableMetrics(o => o.AddMeter(meterName));
        ServiceProvider provider = services.BuildServiceProvider(validateScopes: true);
        foreach (IHostedService hosted in provider.GetServices<IHostedService>())
        {
            await hosted.StartAsync(CancellationToken.None);
        }

        return provider;
    }

    [Fact]
    public async Task TheBridgeMeterIsScopedToTheContainersMeterFactory()
    {
        var services = new ServiceCollection();
        services.AddMetrics();
        services.AddScalableMetrics(o => o.UseOpenTelemetry().MeterName = "test.factory." + Guid.NewGuid().ToString("N"));
        Meter? bridgeMeter = null;
        using var listener = new MeterListener();
        await using (ServiceProvider provider = services.BuildServiceProvider(validateScopes: true))
        {
            MeterBridge bridge = OpenTelemetryPart.Of(provider)!.Bridge;
            IMeterFactory factory = provider.GetRequiredService<IMeterFactory>();
            provider.GetRequiredService<MetricRegistry>().CreateCounter("factory.counter").Add(1);
            listener.InstrumentPublished = (instrument, _) =>
            {
                if (instrument.Meter.Name == bridge.MeterName)
                {
                    bridgeMeter = instrument.Meter;
                }
            };
            listener.Start();
            Assert.NotNull(bridgeMeter);
            Assert.Same(factory, bridgeMeter.Scope);
        }

        // Disposing the container disposed the bridge, and with it the bridge's meter: its instrument is no longer enabled anywhere.
        Assert.DoesNotContain(bridgeMeter!.Name, PublishedMeterNames());
    }

    private static List<string> PublishedMeterNames()
    {
        var names = new List<string>();
        using var listener = new MeterListener { InstrumentPublished = (instrument, _) => names.Add(instrument.Meter.Name) };
        listener.Start();
        return names;
    }

    private static int CountOccurrences(string text, string value) =>
        (text.Length - text.Replace(value, string.Empty, StringComparison.Ordinal).Length) / value.Length;
}
