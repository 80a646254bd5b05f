using System.Diagnostics.Metrics;
using System.Text;
using OpenTelemetry;
using OpenTelemetry.Metrics;
using ScalableMetrics.Exporter.Prometheus.Exposition;
using ScalableMetrics.Exporter.Prometheus.Sources;
using ScalableMetrics.Naming;

namespace ScalableMetrics.Exporter.Tests.Prometheus.Exposition;

/// <summary>
/// The writer's guards for what the registry should refuse: it never writes two samples
/// Prometheus would store as one, nor a family twice, and a tag never merges into a scope label;
/// and the tests' check of the bytes written (<see cref="ExposedSeries"/>) finds two such samples
/// in every format.
/// </summary>
public sealed class ExpositionGuardTests
{
    private const string Scope = "test.guards";

    [Fact]
    public async Task TagSetsThatExportAlikeAreOneSeriesAndOneSample()
    {
        var registry = new MetricRegistry();
        PartitionedCounter counter = registry.CreateCounter("alike");
        counter.Add(3, new KeyValuePair<string, object?>("code", 200));
        counter.Add(4, new KeyValuePair<string, object?>("code", "200"));
        counter.Add(5);
        counter.Add(6, new KeyValuePair<string, object?>("a", ""));
        var logger = new ListLogger();

        IReadOnlyList<PrometheusSample> samples = PrometheusText.Parse(await ScrapeAsync(new PrometheusScraper(registry, Scope, logger: logger)));

        // The registry merged them (its identity rule), so the writer's guard had nothing to do.
        Assert.Equal(2, counter.SeriesCount);
        Assert.Equal("7", PrometheusText.Single(samples, "alike_total", ("code", "200")).Value);
        Assert.Equal("11", PrometheusText.Exact(samples, "alike_total", new Dictionary<string, string> { ["otel_scope_name"] = Scope }).Value);
        Assert.Empty(logger.Messages);
    }

    [Fact]
    public async Task AnInstrumentWhoseFamilyNameIsTakenIsRefusedAndTheFirstOneIsScraped()
    {
        var registry = new MetricRegistry();
        registry.CreateCounter("a.b").Add(1);

        ArgumentException refused = Assert.Throws<ArgumentException>(() => registry.CreateCounter("a_b"));

        Assert.Contains("'a.b'", refused.Message, StringComparison.Ordinal);
        IReadOnlyList<PrometheusSample> samples = PrometheusText.Parse(await ScrapeAsync(new PrometheusScraper(registry, Scope)));
        Assert.Equal("1", PrometheusText.Single(samples, "a_b_total").Value);
    }

    [Fact]
    public async Task AnotherMetersFamilyOfARegistryNameIsLeftOutAndLoggedOnce()
    {
        string meterName = "test.other." + Guid.NewGuid().ToString("N");
        using var meter = new Meter(meterName);
        var exporter = new PrometheusPullExporter();
        using MeterProvider provider = Sdk.CreateMeterProviderBuilder().AddMeter(meterName).AddReader(new BaseExportingMetricReader(exporter)).Build();
        meter.CreateCounter<long>("shared").Add(40);
        meter.CreateCounter<long>("spoofing").Add(1, new KeyValuePair<string, object?>("otel_scope_name", "evil"));
        var registry = new MetricRegistry();
        registry.CreateCounter("shared").Add(2);
        var logger = new ListLogger();
        var scraper = exporter.CreateScraper(registry, Scope, logger: logger);

        string text = await ScrapeAsync(scraper);
        await ScrapeAsync(scraper);

        IReadOnlyList<PrometheusSample> samples = PrometheusText.Parse(text);
        Assert.Equal("2", PrometheusText.Single(samples, "shared_total").Value);
        Assert.Equal(Scope, PrometheusText.Single(samples, "shared_total").Labels["otel_scope_name"]);
        Assert.Single(logger.Messages, m => m.Contains("'shared_total'", StringComparison.Ordinal));

        // A tag named like the scope label stays a tag; the scope label is the meter's alone.
        PrometheusSample spoofing = PrometheusText.Single(samples, "spoofing_total");
        Assert.Equal(meterName, spoofing.Labels["otel_scope_name"]);
        Assert.Equal("evil", spoofing.Labels["tag_otel_scope_name"]);
    }

    [Fact]
    public async Task AnotherMetersFamilyNamedAsTheResourcesIsLeftOutInEveryFormat()
    {
        string meterName = "test.target." + Guid.NewGuid().ToString("N");
        using var meter = new Meter(meterName);
        var exporter = new PrometheusPullExporter();
        using MeterProvider provider = Sdk.CreateMeterProviderBuilder().AddMeter(meterName).AddReader(new BaseExportingMetricReader(exporter)).Build();
        meter.CreateObservableGauge("target", () => 7);
        meter.CreateObservableGauge("target_info", () => 8);
        meter.CreateObservableGauge("targets", () => 9);
        var logger = new ListLogger();
        var scraper = new PrometheusScraper(new MetricRegistry(), Scope, null, logger, listened: null, [new MeterProviderSource(exporter, logger)])
        {
            ResourceAttributes = [new("service.name", "guards")],
        };

        string text = Encoding.UTF8.GetString(await scraper.ScrapeAsync(PrometheusExpositionFormat.Text));
        string openMetrics = Encoding.UTF8.GetString(await scraper.ScrapeAsync(PrometheusExpositionFormat.OpenMetrics));

        // OpenMetrics names target_info's family "target": one family of that name, the resource's.
        Assert.Single(openMetrics.Split('\n'), line => line.StartsWith("# TYPE target ", StringComparison.Ordinal));
        Assert.Contains("# TYPE target info", openMetrics, StringComparison.Ordinal);
        Assert.Single(text.Split('\n'), line => line.StartsWith("# TYPE target_info ", StringComparison.Ordinal));
        Assert.DoesNotContain("\ntarget{", text, StringComparison.Ordinal);
        Assert.Contains("\ntargets{", text, StringComparison.Ordinal);
        Assert.Contains(logger.Messages, m => m.Contains("'target'", StringComparison.Ordinal));
        Assert.Contains(logger.Messages, m => m.Contains("'target_info'", StringComparison.Ordinal));
    }

    public static TheoryData<PrometheusExpositionFormat> Formats =>
        [PrometheusExpositionFormat.Text, PrometheusExpositionFormat.OpenMetrics, PrometheusExpositionFormat.Protobuf];

    [Theory]
    [MemberData(nameof(Formats))]
    public void TheCheckOfTheBytesWrittenFindsARepeatedSeries(PrometheusExpositionFormat format)
    {
        // Blocks of equal text: a label of empty value is no label, and 1 is written as "1".
        var scratch = new PrometheusTextWriter();
        LabelBlock labels = LabelBlock.Create(scratch, [new("otel_scope_name", "m")], [new("b", "1"), new("a", "")]);
        LabelBlock same = LabelBlock.Create(scratch, [new("otel_scope_name", "m")], [new("b", 1L)]);
        LabelBlock other = LabelBlock.Create(scratch, [new("otel_scope_name", "m")], [new("b", 2L)]);

        byte[] distinct = WriteTwoSeries(format, labels, other);
        byte[] repeated = WriteTwoSeries(format, labels, same);

        Assert.Equal(labels, same);
        ExposedSeries.AssertNoneRepeated(format, distinct);
        Assert.ThrowsAny<Xunit.Sdk.XunitException>(() => ExposedSeries.AssertNoneRepeated(format, repeated));
    }

    [Fact]
    public void AnExtraLabelMakesAnotherSeries()
    {
        LabelBlock labels = LabelBlock.Create(new PrometheusTextWriter(), [new("otel_scope_name", "m")], [new("b", "1")]);
        var writer = new TextFormatWriter();

        writer.WriteHeader("x", ExportedKind.Histogram, null);
        writer.WriteSample("x", "_bucket", labels, "le", 1, 1L);
        writer.WriteSample("x", "_bucket", labels, "le", double.PositiveInfinity, 1L);

        ExposedSeries.AssertNoneRepeated(PrometheusExpositionFormat.Text, writer.ToArray());
        Assert.Equal("# TYPE x histogram\nx_bucket{otel_scope_name=\"m\",b=\"1\",le=\"1\"} 1\nx_bucket{otel_scope_name=\"m\",b=\"1\",le=\"+Inf\"} 1\n", writer.ToString());
    }

    // A counter family of two series, written as production writes them.
    private static byte[] WriteTwoSeries(PrometheusExpositionFormat format, LabelBlock first, LabelBlock second)
    {
        ExpositionWriter writer = ExpositionFormat.Of(format).CreateWriter();
        writer.WriteHeader("x_total", ExportedKind.Counter, null);
        writer.WriteSample("x_total", string.Empty, first, null, 0, 1L);
        writer.WriteSample("x_total", string.Empty, second, null, 0, 2L);
        writer.WriteEnd();
        return writer.ToArray();
    }

    private static async Task<string> ScrapeAsync(PrometheusScraper scraper) => Encoding.UTF8.GetString(await scraper.ScrapeAsync());
}
