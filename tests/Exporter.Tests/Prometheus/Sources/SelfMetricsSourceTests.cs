using System.Diagnostics.Metrics;
using System.Text;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using ScalableMetrics.Exporter.Prometheus.Exposition;
using ScalableMetrics.Exporter.Prometheus.Scraping;
using ScalableMetrics.Exporter.Tests.Prometheus.Exposition;
using ScalableMetrics.Exporter.Tests.Prometheus.Scraping;
using ScalableMetrics.Naming;

namespace ScalableMetrics.Exporter.Tests.Prometheus.Sources;

/// <summary>The families a scrape writes about the library itself (<see cref="ScalableMetricsOptions.ExportSelfMetrics"/>).</summary>
public sealed class SelfMetricsSourceTests
{
    private const string Scope = "ScalableMetrics";

    [Fact]
    public async Task EachFamilyIsWrittenWithItsValue()
    {
        string meter = "self.test." + Guid.NewGuid().ToString("N");
        using IHost host = BuildHost(o =>
        {
            o.Registry.MaxSeriesPerInstrument = 2;
            o.AddMeter(meter + ".*");
        });
        await host.StartAsync();
        try
        {
            MetricRegistry registry = host.Services.GetRequiredService<MetricRegistry>();
            PartitionedCounter items = registry.CreateCounter("self.items");
            items.Add(1, new KeyValuePair<string, object?>("k", "a"));
            items.Add(1, new KeyValuePair<string, object?>("k", "b"));
            items.Add(1, new KeyValuePair<string, object?>("k", "c"));
            registry.CreateGauge("self.idle");

            // Listened: one measurement the registry refuses (a negative counter increment), and an
            // instrument whose exported name meets another meter's of another kind.
            using var first = new Meter(meter + ".a");
            using var second = new Meter(meter + ".b");
            Counter<long> clash = first.CreateCounter<long>("clash");
            clash.Add(2);
            clash.Add(-1);
            second.CreateUpDownCounter<long>("clash").Add(1);

            PrometheusScraper scraper = host.Services.GetRequiredService<PrometheusScraper>();
            IReadOnlyList<PrometheusSample> before = PrometheusText.Parse(Encoding.UTF8.GetString(await scraper.ScrapeAsync()));
            IReadOnlyList<PrometheusSample> samples = PrometheusText.Parse(Encoding.UTF8.GetString(await scraper.ScrapeAsync()));

            // The first scrape has no collection before it; the second reports the first's.
            Assert.DoesNotContain(before, s => s.Name == "scalablemetrics_scrape_duration_seconds");
            double seconds = PrometheusText.Single(samples, "scalablemetrics_scrape_duration_seconds", ("format", "text")).NumericValue;
            Assert.True(seconds is > 0 and < 60, $"duration {seconds}");
            Assert.DoesNotContain(samples, s => s.Name == "scalablemetrics_scrape_duration_seconds" && s.Labels["format"] != "text");

            Assert.Equal(3, PrometheusText.Single(samples, "scalablemetrics_series", ("otel_scope_name", Scope), ("instrument", "self.items")).NumericValue);
            Assert.Equal(0, PrometheusText.Single(samples, "scalablemetrics_series", ("otel_scope_name", Scope), ("instrument", "self.idle")).NumericValue);
            Assert.Equal(2, PrometheusText.Single(samples, "scalablemetrics_series_limit", ("otel_scope_name", Scope), ("instrument", "self.items")).NumericValue);
            Assert.Equal(1, PrometheusText.Single(samples, "scalablemetrics_series", ("otel_scope_name", meter + ".a"), ("instrument", "clash")).NumericValue);
            Assert.Equal(1, PrometheusText.Single(samples, "scalablemetrics_instruments_overflowing", ("otel_scope_name", Scope)).NumericValue);
            Assert.Equal(0, PrometheusText.Single(samples, "scalablemetrics_instruments_overflowing", ("otel_scope_name", meter + ".a")).NumericValue);
            Assert.Equal(1, PrometheusText.Single(samples, "scalablemetrics_dropped_measurements_total").NumericValue);
            Assert.Equal(1, PrometheusText.Single(samples, "scalablemetrics_refused_instruments_total").NumericValue);
        }
        finally
        {
            await host.StopAsync();
        }
    }

    [Fact]
    public async Task TheDurationIsPerFormatAndEveryFormatCarriesTheFamilies()
    {
        using IHost host = BuildHost(_ => { });
        await host.StartAsync();
        try
        {
            host.Services.GetRequiredService<MetricRegistry>().CreateCounter("self.items").Add(5);
            PrometheusScraper scraper = host.Services.GetRequiredService<PrometheusScraper>();
            await scraper.ScrapeAsync(PrometheusExpositionFormat.Protobuf);
            string openMetrics = Encoding.UTF8.GetString(await scraper.ScrapeAsync(PrometheusExpositionFormat.OpenMetrics));
            byte[] protobufBytes = await scraper.ScrapeAsync(PrometheusExpositionFormat.Protobuf);
            List<ProtoMessage> protobuf = ProtoMessage.ParseDelimited(protobufBytes);
            ExposedSeries.AssertNoneRepeated(PrometheusExpositionFormat.Protobuf, protobufBytes);

            OpenMetricsScrapeTests.AssertOpenMetrics(openMetrics);
            Assert.Contains("\n# TYPE scalablemetrics_scrape_duration_seconds gauge\n# UNIT scalablemetrics_scrape_duration_seconds seconds\n", openMetrics);
            Assert.Matches("\nscalablemetrics_scrape_duration_seconds\\{otel_scope_name=\"ScalableMetrics\",format=\"protobuf\"\\} [0-9.e-]+\n", openMetrics);
            Assert.DoesNotContain("format=\"openmetrics\"", openMetrics);
            Assert.Contains("\n# TYPE scalablemetrics_dropped_measurements counter\n", openMetrics);
            Assert.Contains("\nscalablemetrics_dropped_measurements_total{otel_scope_name=\"ScalableMetrics\"} 0\n", openMetrics);
            Assert.Contains("\nscalablemetrics_series{otel_scope_name=\"ScalableMetrics\",instrument=\"self.items\"} 1\n", openMetrics);

            string[] families = [.. protobuf.Select(f => f.String(1))];
            Assert.Contains("scalablemetrics_scrape_duration_seconds", families);
            Assert.Contains("scalablemetrics_series", families);
            Assert.Contains("scalablemetrics_series_limit", families);
            Assert.Contains("scalablemetrics_instruments_overflowing", families);
            Assert.Contains("scalablemetrics_dropped_measurements_total", families);
            Assert.Contains("scalablemetrics_refused_instruments_total", families);
        }
        finally
        {
            await host.StopAsync();
        }
    }

    // docs/self-diagnostics.md: every scrape, in every format, carries the families named as client
    // libraries name theirs (scalablemetrics_series, scalablemetrics_scrape_duration_seconds), which
    // its alert (scalablemetrics_instruments_overflowing > 0) and dashboards query. A UTF-8 name
    // translation is for the service's instruments, whose names are OpenTelemetry's.
    [Theory]
    [InlineData(PrometheusNameTranslation.NoUTF8EscapingWithSuffixes)]
    [InlineData(PrometheusNameTranslation.NoTranslation)]
    public async Task UnderAUtf8TranslationTheFamiliesKeepTheirDocumentedNames(PrometheusNameTranslation translation)
    {
        using IHost host = BuildHost(o => o.NameTranslation = translation);
        await host.StartAsync();
        try
        {
            host.Services.GetRequiredService<MetricRegistry>().CreateCounter("self.items").Add(5);
            PrometheusScraper scraper = host.Services.GetRequiredService<PrometheusScraper>();
            await scraper.ScrapeAsync(ExpositionFormat.Text, EscapingScheme.AllowUtf8);

            // What Prometheus 3 asks for by default: OpenMetrics (or text 1.0.0) with escaping=allow-utf-8.
            string text = Encoding.UTF8.GetString(await scraper.ScrapeAsync(ExpositionFormat.Text, EscapingScheme.AllowUtf8));

            Assert.Contains("\nscalablemetrics_scrape_duration_seconds{otel_scope_name=\"ScalableMetrics\",format=\"text\"} ", text);
            Assert.Contains("\nscalablemetrics_series{otel_scope_name=\"ScalableMetrics\",instrument=\"self.items\"} 1\n", text);
            Assert.Contains("\nscalablemetrics_instruments_overflowing{otel_scope_name=\"ScalableMetrics\"} 0\n", text);
        }
        finally
        {
            await host.StopAsync();
        }
    }

    [Fact]
    public async Task TurnedOffNoFamilyOfTheLibraryIsWritten()
    {
        using IHost host = BuildHost(o => o.ExportSelfMetrics = false);
        await host.StartAsync();
        try
        {
            host.Services.GetRequiredService<MetricRegistry>().CreateCounter("self.items").Add(5);
            PrometheusScraper scraper = host.Services.GetRequiredService<PrometheusScraper>();
            await scraper.ScrapeAsync();
            string text = Encoding.UTF8.GetString(await scraper.ScrapeAsync());

            Assert.Contains("\nself_items_total{otel_scope_name=\"ScalableMetrics\"} 5\n", text);
            Assert.DoesNotContain("scalablemetrics_", text);
        }
        finally
        {
            await host.StopAsync();
        }
    }

    [Theory]
    [InlineData("scalablemetrics.series")]
    [InlineData("scalablemetrics_scrape_duration_seconds")]
    [InlineData("scalablemetrics.dropped.measurements")]
    public void NoInstrumentMayExportUnderTheLibrarysNames(string name)
    {
        var registry = new MetricRegistry();

        ArgumentException error = Assert.Throws<ArgumentException>(() => registry.CreateGauge(name));
        Assert.Equal("name", error.ParamName);
        Assert.Contains("the library's own metrics", error.Message);
        Assert.Empty(registry.Instruments);
    }

    private static IHost BuildHost(Action<ScalableMetricsOptions> configure)
    {
        HostApplicationBuilder builder = Host.CreateApplicationBuilder();
        builder.AddScalableMetrics(configure);
        return builder.Build();
    }
}
