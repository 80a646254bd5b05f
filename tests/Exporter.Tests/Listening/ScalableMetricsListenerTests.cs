using System.Diagnostics.Metrics;
using System.Text;
using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Diagnostics.Metrics;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;

namespace ScalableMetrics.Exporter.Tests.Listening;

/// <summary>
/// .NET's metrics configuration as a way in: <c>EnableMetrics</c> rules and the <c>Metrics</c>
/// configuration section choose which instruments the <see cref="ScalableMetricsListener"/>
/// records, and the scrape has exactly what they recorded.
/// </summary>
public sealed class ScalableMetricsListenerTests
{
    [Fact]
    public async Task EnableMetricsRulesChooseTheInstrumentsRecorded()
    {
        string id = "test.rules." + Guid.NewGuid().ToString("N");
        HostApplicationBuilder builder = Host.CreateApplicationBuilder();
        builder.AddScalableMetrics(o => o.MeterName = id + ".bridge");
        builder.Metrics.AddScalableMetrics();
        builder.Metrics.EnableMetrics(id + ".whole");
        builder.Metrics.EnableMetrics(id + ".one", "one.kept");
        builder.Metrics.EnableMetrics(id + ".most");
        builder.Metrics.DisableMetrics(id + ".most", "most.off");
        builder.Metrics.EnableMetrics(id + ".prefix.*");
        builder.Metrics.EnableMetrics(id + ".theirs", listenerName: "SomeoneElse");
        using IHost host = builder.Build();
        await host.StartAsync();

        using var whole = new Meter(id + ".whole", "2.0");
        using var one = new Meter(id + ".one");
        using var most = new Meter(id + ".most");
        using var prefixed = new Meter(id + ".prefix.sub");
        using var theirs = new Meter(id + ".theirs");
        using var none = new Meter(id + ".none");
        whole.CreateCounter<long>("whole.requests").Add(3, new KeyValuePair<string, object?>("route", "/a"));
        whole.CreateCounter<long>("whole.requests").Add(4, new KeyValuePair<string, object?>("route", "/a"));
        Histogram<double> latency = whole.CreateHistogram("whole.latency", "s", null, null, new InstrumentAdvice<double> { HistogramBucketBoundaries = [0.1, 1] });
        latency.Record(0.05);
        latency.Record(0.5);
        one.CreateCounter<int>("one.kept").Add(5);
        one.CreateCounter<int>("one.other").Add(6);
        most.CreateUpDownCounter<long>("most.on").Add(-2);
        most.CreateCounter<long>("most.off").Add(8);
        prefixed.CreateCounter<double>("prefix.total").Add(1.5);
        theirs.CreateCounter<long>("theirs.total").Add(9);
        none.CreateCounter<long>("none.total").Add(10);

        IReadOnlyList<PrometheusSample> samples = await ScrapeAsync(host);

        PrometheusSample requests = Assert.Single(samples, s => s.Name == "whole_requests_total");
        Assert.Equal(("7", "/a", id + ".whole", "2.0"), (requests.Value, requests.Labels["route"], requests.Labels["otel_scope_name"], requests.Labels["otel_scope_version"]));
        Assert.Equal("2", Assert.Single(samples, s => s.Name == "whole_latency_seconds_count").Value);
        Assert.Equal("1", Assert.Single(samples, s => s.Name == "whole_latency_seconds_bucket" && s.Labels["le"] == "0.1").Value);
        Assert.Equal("5", Assert.Single(samples, s => s.Name == "one_kept_total").Value);
        Assert.Equal("-2", Assert.Single(samples, s => s.Name == "most_on").Value);
        Assert.Equal("1.5", Assert.Single(samples, s => s.Name == "prefix_total").Value);
        foreach (string left in new[] { "one_other", "most_off", "theirs_total", "none_total" })
        {
            Assert.DoesNotContain(samples, s => s.Name.StartsWith(left, StringComparison.Ordinal));
        }

        await host.StopAsync();
    }

    [Fact]
    public async Task TheMetricsConfigurationSectionChoosesTheInstrumentsRecorded()
    {
        string id = "test.config." + Guid.NewGuid().ToString("N");
        HostApplicationBuilder builder = Host.CreateApplicationBuilder();
        builder.Configuration.AddInMemoryCollection(new Dictionary<string, string?>
        {
            [$"Metrics:{ScalableMetricsListener.ListenerName}:EnabledMetrics:{id}.ours"] = "true",
            [$"Metrics:EnabledMetrics:{id}.everyones:everyones.kept"] = "true",
            [$"Metrics:EnabledMetrics:{id}.everyones:everyones.dropped"] = "false",
            [$"Metrics:SomeoneElse:EnabledMetrics:{id}.theirs"] = "true",
        });
        builder.AddScalableMetrics(o => o.MeterName = id + ".bridge");
        builder.Metrics.AddScalableMetrics();
        using IHost host = builder.Build();
        await host.StartAsync();

        using var ours = new Meter(id + ".ours");
        using var everyones = new Meter(id + ".everyones");
        using var theirs = new Meter(id + ".theirs");
        ours.CreateCounter<long>("ours.total").Add(11);
        everyones.CreateGauge<double>("everyones.kept").Record(0.25);
        everyones.CreateCounter<long>("everyones.dropped").Add(12);
        theirs.CreateCounter<long>("theirs.total").Add(13);

        IReadOnlyList<PrometheusSample> samples = await ScrapeAsync(host);

        Assert.Equal("11", Assert.Single(samples, s => s.Name == "ours_total").Value);
        Assert.Equal("0.25", Assert.Single(samples, s => s.Name == "everyones_kept").Value);
        Assert.DoesNotContain(samples, s => s.Name.StartsWith("everyones_dropped", StringComparison.Ordinal));
        Assert.DoesNotContain(samples, s => s.Name.StartsWith("theirs_total", StringComparison.Ordinal));
        await host.StopAsync();
    }

    [Fact]
    public async Task EachScrapeRunsEachEnabledCallbackOnceThroughTheListenersSource()
    {
        string id = "test.observed." + Guid.NewGuid().ToString("N");
        HostApplicationBuilder builder = Host.CreateApplicationBuilder();
        builder.AddScalableMetrics(o => o.MeterName = id + ".bridge");
        builder.Metrics.AddScalableMetrics();
        builder.Metrics.EnableMetrics(id);
        using IHost host = builder.Build();
        await host.StartAsync();
        using var meter = new Meter(id);
        int queueCalls = 0;
        int usedCalls = 0;
        meter.CreateObservableGauge("observed.queue", () => new Measurement<long>(10 * ++queueCalls, new KeyValuePair<string, object?>("queue", "a")));
        meter.CreateObservableCounter("observed.used", () => 0.5 * ++usedCalls, "s");

        IReadOnlyList<PrometheusSample> first = await ScrapeAsync(host);
        IReadOnlyList<PrometheusSample> second = await ScrapeAsync(host);

        Assert.Equal(("10", "0.5"), (Assert.Single(first, s => s.Name == "observed_queue").Value, Assert.Single(first, s => s.Name == "observed_used_seconds_total").Value));
        Assert.Equal(("20", "1"), (Assert.Single(second, s => s.Name == "observed_queue").Value, Assert.Single(second, s => s.Name == "observed_used_seconds_total").Value));
        Assert.Equal((2, 2), (queueCalls, usedCalls));
        await host.StopAsync();
    }

    [Fact]
    public async Task AThrowingEnabledCallbackIsLoggedOnceAndDropsNoOtherInstrumentFromAnyScrape()
    {
        // docs/prometheus.md: a callback that throws is logged and left out of that scrape, and
        // the rest of the scrape is written as usual; the rules' source runs every callback at once.
        string id = "test.observed.failing." + Guid.NewGuid().ToString("N");
        var log = new CapturedLog();
        HostApplicationBuilder builder = Host.CreateApplicationBuilder();
        builder.Logging.AddProvider(log);
        builder.AddScalableMetrics(o => o.MeterName = id + ".bridge");
        builder.Metrics.AddScalableMetrics();
        builder.Metrics.EnableMetrics(id);
        using IHost host = builder.Build();
        await host.StartAsync();
        using var meter = new Meter(id);
        meter.CreateObservableGauge("failing.healthy", () => 7L);
        meter.CreateObservableGauge<long>("failing.broken", new Func<long>(() => throw new InvalidOperationException("broken callback")));

        var missing = new List<int>();
        for (int scrape = 1; scrape <= 6; scrape++)
        {
            IReadOnlyList<PrometheusSample> samples = await ScrapeAsync(host);
            if (!samples.Any(s => s.Name == "failing_healthy" && s.Value == "7"))
            {
                missing.Add(scrape);
            }

            Assert.DoesNotContain(samples, s => s.Name == "failing_broken");
        }

        await host.StopAsync();
        Assert.Empty(missing);
        List<CapturedLog.Entry> warnings = [.. log.Entries.Where(e => e.Level >= LogLevel.Warning)];
        CapturedLog.Entry failure = Assert.Single(warnings);
        Assert.Equal("broken callback", Assert.IsType<InvalidOperationException>(failure.Exception).Message);
        Assert.DoesNotContain("failing.healthy", failure.Message, StringComparison.Ordinal);
    }

    // docs/listening.md: an enabled instrument has the same dropped-measurement handling as an
    // AddMeter one, where "a measurement the registry would refuse ... is dropped, counted and
    // logged once per instrument": a refused report of an observable callback, not its others.
    [Fact]
    public async Task AnEnabledObservableReportTheRegistryRefusesIsDroppedAndCountedAndTheOtherReportsAreScraped()
    {
        string id = "test.observed.refused." + Guid.NewGuid().ToString("N");
        var log = new CapturedLog();
        HostApplicationBuilder builder = Host.CreateApplicationBuilder();
        builder.Logging.AddProvider(log);
        builder.AddScalableMetrics(o => o.MeterName = id + ".bridge");
        builder.Metrics.AddScalableMetrics();
        builder.Metrics.EnableMetrics(id);
        using IHost host = builder.Build();
        await host.StartAsync();
        using var meter = new Meter(id);
        meter.CreateObservableCounter("refused.done", () => new[]
        {
            new Measurement<long>(5, new KeyValuePair<string, object?>("queue", "a")),
            new Measurement<long>(-1, new KeyValuePair<string, object?>("queue", "b")),
        });
        meter.CreateObservableGauge("refused.length", () => new[]
        {
            new Measurement<double>(3, new KeyValuePair<string, object?>("queue", "a")),
            new Measurement<double>(4, new KeyValuePair<string, object?>("", "b")),
        });

        IReadOnlyList<PrometheusSample> first = await ScrapeAsync(host);
        IReadOnlyList<PrometheusSample> second = await ScrapeAsync(host);
        await host.StopAsync();

        foreach (IReadOnlyList<PrometheusSample> samples in new[] { first, second })
        {
            PrometheusSample done = Assert.Single(samples, s => s.Name == "refused_done_total");
            PrometheusSample length = Assert.Single(samples, s => s.Name == "refused_length");
            Assert.Equal(("5", "a"), (done.Value, done.Labels["queue"]));
            Assert.Equal(("3", "a"), (length.Value, length.Labels["queue"]));
        }

        // Two refused each scrape, counted before the self-metrics are written; one warning per instrument.
        Assert.Equal((2.0, 4.0), (PrometheusText.Single(first, "scalablemetrics_dropped_measurements_total").NumericValue, PrometheusText.Single(second, "scalablemetrics_dropped_measurements_total").NumericValue));
        List<CapturedLog.Entry> dropped = [.. log.Entries.Where(e => e.EventId.Id == 20)];
        Assert.Equal(2, dropped.Count);
        Assert.Contains(dropped, e => e.Message.Contains("'refused.done'", StringComparison.Ordinal));
        Assert.Contains(dropped, e => e.Message.Contains("'refused.length'", StringComparison.Ordinal));
        Assert.DoesNotContain(log.Entries, e => e.Level >= LogLevel.Warning && e.EventId.Id != 20);
    }

    [Fact]
    public async Task AMeterTakenByAddMeterAndEnabledByARuleIsRecordedOnceEvenWithTheListenerAddedTwice()
    {
        string id = "test.once." + Guid.NewGuid().ToString("N");
        HostApplicationBuilder builder = Host.CreateApplicationBuilder();
        builder.AddScalableMetrics(o => o.AddMeter(id + ".named").MeterName = id + ".bridge");
        builder.Metrics.AddScalableMetrics();
        builder.Metrics.AddListener<ScalableMetricsListener>();
        builder.Metrics.EnableMetrics(id + ".named");
        builder.Metrics.EnableMetrics(id + ".ruled");
        builder.Metrics.EnableMetrics(id + ".bridge");
        using IHost host = builder.Build();
        await host.StartAsync();
        using var named = new Meter(id + ".named");
        using var ruled = new Meter(id + ".ruled");
        named.CreateCounter<long>("named.total").Add(3);
        ruled.CreateCounter<long>("ruled.total").Add(4);
        host.Services.GetRequiredService<MetricRegistry>().CreateCounter("bridged.total").Add(5);

        IReadOnlyList<PrometheusSample> samples = await ScrapeAsync(host);

        Assert.Equal("3", Assert.Single(samples, s => s.Name == "named_total").Value);
        Assert.Equal("4", Assert.Single(samples, s => s.Name == "ruled_total").Value);
        PrometheusSample bridged = Assert.Single(samples, s => s.Name == "bridged_total");
        Assert.Equal(("5", id + ".bridge"), (bridged.Value, bridged.Labels["otel_scope_name"]));
        await host.StopAsync();
    }

    [Fact]
    public void WithoutAddScalableMetricsTheListenerSaysSo()
    {
        using ServiceProvider empty = new ServiceCollection().BuildServiceProvider();

        InvalidOperationException error = Assert.Throws<InvalidOperationException>(() => new ScalableMetricsListener(empty));

        Assert.Contains("AddScalableMetrics", error.Message, StringComparison.Ordinal);
        Assert.Equal("services", Assert.Throws<ArgumentNullException>(() => new ScalableMetricsListener(null!)).ParamName);
        Assert.Equal("builder", Assert.Throws<ArgumentNullException>(() => ScalableMetricsMetricsBuilderExtensions.AddScalableMetrics(null!)).ParamName);
    }

    private static async Task<IReadOnlyList<PrometheusSample>> ScrapeAsync(IHost host) =>
        PrometheusText.Parse(Encoding.UTF8.GetString(await host.Services.GetRequiredService<PrometheusScraper>().ScrapeAsync()));
}
