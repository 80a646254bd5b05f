using System.Diagnostics.Metrics;
using System.Text;
using ScalableMetrics.Exporter.Listening;
using ScalableMetrics.Exporter.Tests.Prometheus.Exposition;

namespace ScalableMetrics.Exporter.Tests.Prometheus.Sources;

/// <summary>
/// Listened meters whose instruments share a name (libraries that name theirs alike, a meter in
/// two versions): one family in every format, each series with its own <c>otel_scope_name</c> and
/// <c>otel_scope_version</c>, as OpenTelemetry's Prometheus exporter writes them; and an instrument
/// of another kind under a taken name refused, named in the log, never silently left out.
/// </summary>
public sealed class ListenedMetersSourceTests
{
    [Fact]
    public async Task SameNamedInstrumentsOfTwoMetersAreOneFamilyInEveryFormat()
    {
        string prefix = "Shop" + Guid.NewGuid().ToString("N");
        using var host = new MeterListenerHost([prefix + ".*"], "ScalableMetrics", () => new MetricRegistry(), new ListLogger());
        host.Start();
        using var orders = new Meter(prefix + ".Orders");
        using var billing = new Meter(prefix + ".Billing");
        orders.CreateCounter<long>("requests").Add(3);
        billing.CreateCounter<long>("requests").Add(4);
        orders.CreateHistogram<double>("duration", "s").Record(0.5);
        billing.CreateHistogram<double>("duration", "s").Record(2);
        using var scraper = new PrometheusScraper(new MetricRegistry(), "app", null, null, host);

        string text = Encoding.UTF8.GetString(await scraper.ScrapeAsync(PrometheusExpositionFormat.Text));
        string openMetrics = Encoding.UTF8.GetString(await scraper.ScrapeAsync(PrometheusExpositionFormat.OpenMetrics));
        byte[] protobufBytes = await scraper.ScrapeAsync(PrometheusExpositionFormat.Protobuf);
        List<ProtoMessage> protobuf = ProtoMessage.ParseDelimited(protobufBytes);
        ExposedSeries.AssertNoneRepeated(PrometheusExpositionFormat.Text, Encoding.UTF8.GetBytes(text));
        ExposedSeries.AssertNoneRepeated(PrometheusExpositionFormat.OpenMetrics, Encoding.UTF8.GetBytes(openMetrics));
        ExposedSeries.AssertNoneRepeated(PrometheusExpositionFormat.Protobuf, protobufBytes);

        Assert.Contains($"requests_total{{otel_scope_name=\"{prefix}.Billing\"}} 4\n", text, StringComparison.Ordinal);
        Assert.Contains($"requests_total{{otel_scope_name=\"{prefix}.Orders\"}} 3\n", text, StringComparison.Ordinal);
        Assert.Single(Lines(text), l => l.StartsWith("# TYPE requests_total ", StringComparison.Ordinal));
        Assert.Single(Lines(text), l => l.StartsWith("# TYPE duration_seconds ", StringComparison.Ordinal));
        Assert.Equal(2, Lines(text).Count(l => l.StartsWith("duration_seconds_count{", StringComparison.Ordinal)));

        Assert.Single(Lines(openMetrics), l => l.StartsWith("# TYPE requests ", StringComparison.Ordinal));
        Assert.Equal(2, Lines(openMetrics).Count(l => l.StartsWith("requests_total{", StringComparison.Ordinal)));
        Assert.Single(Lines(openMetrics), l => l.StartsWith("# TYPE duration_seconds ", StringComparison.Ordinal));

        ProtoMessage requests = Assert.Single(protobuf, f => f.String(1) == "requests_total");
        Assert.Equal(2, requests.Messages(4).Count);
        Assert.Equal(2, Assert.Single(protobuf, f => f.String(1) == "duration_seconds").Messages(4).Count);
    }

    [Fact]
    public async Task AMeterInTwoVersionsIsOneFamilyWithEachVersionLabelled()
    {
        string name = "test.versions." + Guid.NewGuid().ToString("N");
        using var host = new MeterListenerHost([name], "ScalableMetrics", () => new MetricRegistry(), new ListLogger());
        host.Start();
        using var v1 = new Meter(name, "1.0");
        using var v2 = new Meter(name, "2.0");
        v1.CreateCounter<long>("jobs").Add(1);
        v2.CreateCounter<long>("jobs").Add(2);
        using var scraper = new PrometheusScraper(new MetricRegistry(), "app", null, null, host);

        string text = Encoding.UTF8.GetString(await scraper.ScrapeAsync(PrometheusExpositionFormat.Text));

        Assert.Single(Lines(text), l => l.StartsWith("# TYPE jobs_total ", StringComparison.Ordinal));
        Assert.Contains($"jobs_total{{otel_scope_name=\"{name}\",otel_scope_version=\"1.0\"}} 1\n", text, StringComparison.Ordinal);
        Assert.Contains($"jobs_total{{otel_scope_name=\"{name}\",otel_scope_version=\"2.0\"}} 2\n", text, StringComparison.Ordinal);
    }

    // OpenTelemetry's Prometheus compatibility specification, "Instrumentation Scope": exporters
    // MUST add the scope schema URL as the otel_scope_schema_url label, as the MeterProvider's
    // meters have it (PrometheusSerializerTests); a meter without one has none.
    [Fact]
    public async Task AListenedMetersSchemaUrlIsWrittenAsOtelScopeSchemaUrl()
    {
        string name = "test.schema." + Guid.NewGuid().ToString("N");
        using var host = new MeterListenerHost([name + ".*"], "ScalableMetrics", () => new MetricRegistry(), new ListLogger());
        host.Start();
        using var withSchema = new Meter(new MeterOptions(name + ".With") { Version = "2.0", TelemetrySchemaUrl = "https://opentelemetry.io/schemas/1.30.0" });
        using var without = new Meter(name + ".Without");
        withSchema.CreateCounter<long>("jobs").Add(1);
        without.CreateCounter<long>("jobs").Add(2);
        using var scraper = new PrometheusScraper(new MetricRegistry(), "app", null, null, host);

        string text = Encoding.UTF8.GetString(await scraper.ScrapeAsync(PrometheusExpositionFormat.Text));

        Assert.Contains($"jobs_total{{otel_scope_name=\"{name}.With\",otel_scope_version=\"2.0\",otel_scope_schema_url=\"https://opentelemetry.io/schemas/1.30.0\"}} 1\n", text, StringComparison.Ordinal);
        Assert.Contains($"jobs_total{{otel_scope_name=\"{name}.Without\"}} 2\n", text, StringComparison.Ordinal);
    }

    [Fact]
    public async Task AnInstrumentOfAnotherKindUnderAnotherMetersNameIsRefusedAndNamedInTheLog()
    {
        string prefix = "Shop" + Guid.NewGuid().ToString("N");
        var logger = new ListLogger();
        using var host = new MeterListenerHost([prefix + ".*"], "ScalableMetrics", () => new MetricRegistry(), logger);
        host.Start();
        using var first = new Meter(prefix + ".A");
        using var second = new Meter(prefix + ".B");
        first.CreateCounter<long>("queue").Add(5);
        second.CreateObservableGauge("queue_total", () => 9L);
        second.CreateUpDownCounter<long>("queue").Add(7);
        using var scraper = new PrometheusScraper(new MetricRegistry(), "app", null, null, host);

        string text = Encoding.UTF8.GetString(await scraper.ScrapeAsync(PrometheusExpositionFormat.Text));

        Assert.Equal(2, host.RefusedInstruments);
        Assert.Contains($"queue_total{{otel_scope_name=\"{prefix}.A\"}} 5\n", text, StringComparison.Ordinal);
        Assert.DoesNotContain($"{prefix}.B", text, StringComparison.Ordinal);
        string[] refusals = [.. logger.Messages.Where(m => m.Contains("is refused", StringComparison.Ordinal))];
        Assert.Equal(2, refusals.Length);
        Assert.All(refusals, m => Assert.Contains($"'{prefix}.A'", m, StringComparison.Ordinal));
        Assert.All(refusals, m => Assert.Contains($"'{prefix}.B'", m, StringComparison.Ordinal));
    }

    private static string[] Lines(string body) => body.Split('\n');

    // An instrument of one meter whose callback throws fails its collection (MeterListenerTests): the
    // scrape leaves it out and logs it, once per cause, not at every scrape with its stack.
    [Fact]
    public async Task AListenedCallbackThatThrowsAtEveryScrapeIsLoggedOnce()
    {
        string name = "test.throwing." + Guid.NewGuid().ToString("N");
        var logger = new ListLogger();
        using var host = new MeterListenerHost([name], "ScalableMetrics", () => new MetricRegistry(), logger);
        host.Start();
        using var meter = new Meter(name);
        meter.CreateObservableGauge<long>("queue.length", new Func<long>(() => throw new InvalidOperationException("queue is broken")));
        meter.CreateCounter<long>("requests").Add(2);
        using var scraper = new PrometheusScraper(new MetricRegistry(), "app", null, logger, host);

        string text = string.Empty;
        for (int i = 0; i < 3; i++)
        {
            text = Encoding.UTF8.GetString(await scraper.ScrapeAsync());
        }

        Assert.DoesNotContain("queue_length", text, StringComparison.Ordinal);
        Assert.Contains($"requests_total{{otel_scope_name=\"{name}\"}} 2\n", text, StringComparison.Ordinal);
        (string message, Exception? exception) = Assert.Single(logger.Entries);
        Assert.Contains("'queue.length'", message, StringComparison.Ordinal);
        Assert.Contains("queue is broken", message, StringComparison.Ordinal);
        Assert.Equal("queue is broken", Assert.IsType<InvalidOperationException>(exception).Message);
    }
}
