using System.Diagnostics.Metrics;
using System.Globalization;
using System.Text;
using Microsoft.Extensions.Logging;

namespace ScalableMetrics.Exporter.Tests.Prometheus.Sources;

/// <summary>
/// The registry's exposition of every kind of instrument, against text written by hand from the
/// text format 0.0.4 specification (prometheus/docs <c>exposition_formats.md</c>: counters
/// <c>B_total</c>, gauges <c>B</c>, histograms <c>B_bucket{le="…"}</c> cumulative and ending in
/// <c>le="+Inf"</c>, then <c>B_sum</c> and <c>B_count</c>) and OpenTelemetry's Prometheus
/// compatibility specification (unit suffixes, <c>_ratio</c>, <c>otel_scope_name</c>).
/// </summary>
public sealed class RegistryExpositionTests
{
    private const string Scope = "m";

    private static readonly KeyValuePair<string, object?> s_route = new("route", "/x");

    [Fact]
    public async Task AHistogramIsCumulativeBucketsWithInclusiveUpperBoundsThenSumAndCount()
    {
        var registry = new MetricRegistry();
        PartitionedHistogram histogram = registry.CreateHistogram("req.duration", "s", "Request duration.", [0.005, 0.01, 0.1, 1]);

        // 2^-8 and 2^-7 (exact in binary, so the sum is exact), 1 on its boundary, 3 above every one.
        histogram.Record(0.00390625, s_route);
        histogram.Record(0.0078125, s_route);
        histogram.Record(1.0, s_route);
        histogram.Record(3L, s_route);

        Assert.Equal(
            """
            # HELP req_duration_seconds Request duration.
            # TYPE req_duration_seconds histogram
            req_duration_seconds_bucket{otel_scope_name="m",route="/x",le="0.005"} 1
            req_duration_seconds_bucket{otel_scope_name="m",route="/x",le="0.01"} 2
            req_duration_seconds_bucket{otel_scope_name="m",route="/x",le="0.1"} 2
            req_duration_seconds_bucket{otel_scope_name="m",route="/x",le="1"} 3
            req_duration_seconds_bucket{otel_scope_name="m",route="/x",le="+Inf"} 4
            req_duration_seconds_sum{otel_scope_name="m",route="/x"} 4.01171875
            req_duration_seconds_count{otel_scope_name="m",route="/x"} 4

            """.ReplaceLineEndings("\n"),
            await ScrapeAsync(registry));
    }

    [Fact]
    public async Task TheDefaultBoundariesGiveEveryLeInTheGoSpelling()
    {
        var registry = new MetricRegistry();
        registry.CreateHistogram("sizes").Record(7L);

        IReadOnlyList<PrometheusSample> samples = PrometheusText.Parse(await ScrapeAsync(registry));

        Assert.Equal(
            ["0", "5", "10", "25", "50", "75", "100", "250", "500", "750", "1000", "2500", "5000", "7500", "10000", "+Inf"],
            samples.Where(s => s.Name == "sizes_bucket").Select(s => s.Labels["le"]));
        Assert.Equal("0", PrometheusText.Single(samples, "sizes_bucket", ("le", "5")).Value);
        Assert.Equal("1", PrometheusText.Single(samples, "sizes_bucket", ("le", "10")).Value);
        Assert.Equal("7", PrometheusText.Single(samples, "sizes_sum").Value);
    }

    [Fact]
    public async Task ANegativeZeroBoundaryGivesTheLeTheGoClientsWriteForZero()
    {
        // prometheus/common expfmt writeFloat has "case f == 0: '0'" and writeOpenMetricsFloat
        // "case f == 0: \"0.0\"", which -0.0 matches: a Go client writes le="0" (OpenMetrics
        // le="0.0") for a boundary of -0.0, so docs/prometheus.md's "a bucket is the same series as
        // theirs" needs the same. -0.0 == 0.0, so the registry even takes [0, 1] as these boundaries.
        var registry = new MetricRegistry();
        registry.CreateHistogram("temps", boundaries: [-0.0, 1]).Record(0.5);
        Assert.Same(registry.CreateHistogram("temps", boundaries: [-0.0, 1]), registry.CreateHistogram("temps", boundaries: [0.0, 1]));
        using var scraper = new PrometheusScraper(registry, Scope);

        IReadOnlyList<PrometheusSample> text = PrometheusText.Parse(Encoding.UTF8.GetString(await scraper.ScrapeAsync()));
        string openMetrics = Encoding.UTF8.GetString(await scraper.ScrapeAsync(PrometheusExpositionFormat.OpenMetrics));

        Assert.Equal(["0", "1", "+Inf"], text.Where(s => s.Name == "temps_bucket").Select(s => s.Labels["le"]));
        Assert.Contains("temps_bucket{otel_scope_name=\"m\",le=\"0.0\"} 0\n", openMetrics, StringComparison.Ordinal);
    }

    [Fact]
    public async Task EverySeriesOfAHistogramIsWrittenWithItsOwnLabelBlock()
    {
        var registry = new MetricRegistry();
        PartitionedHistogram histogram = registry.CreateHistogram("lat", "ms", boundaries: [10]);
        histogram.Record(5.0, new KeyValuePair<string, object?>("code", 200));
        histogram.Bind(new KeyValuePair<string, object?>("code", 500)).Record(50.0);

        Assert.Equal(
            """
            # TYPE lat_milliseconds histogram
            lat_milliseconds_bucket{otel_scope_name="m",code="200",le="10"} 1
            lat_milliseconds_bucket{otel_scope_name="m",code="200",le="+Inf"} 1
            lat_milliseconds_sum{otel_scope_name="m",code="200"} 5
            lat_milliseconds_count{otel_scope_name="m",code="200"} 1
            lat_milliseconds_bucket{otel_scope_name="m",code="500",le="10"} 0
            lat_milliseconds_bucket{otel_scope_name="m",code="500",le="+Inf"} 1
            lat_milliseconds_sum{otel_scope_name="m",code="500"} 50
            lat_milliseconds_count{otel_scope_name="m",code="500"} 1

            """.ReplaceLineEndings("\n"),
            await ScrapeAsync(registry));
    }

    [Fact]
    public async Task AnOperationWithBoundariesIsAHistogramInSeconds()
    {
        var registry = new MetricRegistry();
        OperationData operation = registry.CreateOperationData("db.query", "Queries.", [0.1, 1]);
        operation.Record(TimeSpan.FromMilliseconds(250), new KeyValuePair<string, object?>("db", "users"));
        operation.Record(TimeSpan.FromMilliseconds(250), new KeyValuePair<string, object?>("db", "users"));

        Assert.Equal(
            """
            # HELP db_query_seconds Queries.
            # TYPE db_query_seconds histogram
            db_query_seconds_bucket{otel_scope_name="m",db="users",le="0.1"} 0
            db_query_seconds_bucket{otel_scope_name="m",db="users",le="1"} 2
            db_query_seconds_bucket{otel_scope_name="m",db="users",le="+Inf"} 2
            db_query_seconds_sum{otel_scope_name="m",db="users"} 0.5
            db_query_seconds_count{otel_scope_name="m",db="users"} 2

            """.ReplaceLineEndings("\n"),
            await ScrapeAsync(registry));
    }

    [Fact]
    public async Task AnOperationWithoutBoundariesStaysASummary()
    {
        var registry = new MetricRegistry();
        registry.CreateOperationData("db.query").Record(TimeSpan.FromMilliseconds(500));

        Assert.Equal(
            """
            # TYPE db_query_seconds summary
            db_query_seconds_sum{otel_scope_name="m"} 0.5
            db_query_seconds_count{otel_scope_name="m"} 1

            """.ReplaceLineEndings("\n"),
            await ScrapeAsync(registry));
    }

    [Fact]
    public async Task ADoubleCounterIsACounterOfItsExactDoubleTotal()
    {
        var registry = new MetricRegistry();
        PartitionedDoubleCounter counter = registry.CreateDoubleCounter("sent", "By", "Bytes sent.");
        counter.Add(0.5, s_route);
        counter.Add(0.25, s_route);
        counter.Bind(new KeyValuePair<string, object?>("route", "/y")).Add(1e-7);

        Assert.Equal(
            """
            # HELP sent_bytes_total Bytes sent.
            # TYPE sent_bytes_total counter
            sent_bytes_total{otel_scope_name="m",route="/x"} 0.75
            sent_bytes_total{otel_scope_name="m",route="/y"} 1e-07

            """.ReplaceLineEndings("\n"),
            await ScrapeAsync(registry));
    }

    [Fact]
    public async Task UpDownCountersAreGaugesThatGoNegative()
    {
        var registry = new MetricRegistry();
        PartitionedUpDownCounter depth = registry.CreateUpDownCounter("queue.depth", "{item}", "Items queued.");
        depth.Add(3);
        depth.Add(-8);
        UpDownCounterSeries bound = depth.Bind(new KeyValuePair<string, object?>("queue", "q"));
        bound.Decrement();
        PartitionedDoubleUpDownCounter balance = registry.CreateDoubleUpDownCounter("balance");
        balance.Add(0.25);
        balance.Add(-0.5);

        Assert.Equal(
            """
            # HELP queue_depth Items queued.
            # TYPE queue_depth gauge
            queue_depth{otel_scope_name="m"} -5
            queue_depth{otel_scope_name="m",queue="q"} -1
            # TYPE balance gauge
            balance{otel_scope_name="m"} -0.25

            """.ReplaceLineEndings("\n"),
            await ScrapeAsync(registry));
    }

    [Fact]
    public async Task GaugesAreTheirLastValueAndASeriesNeverSetIsNotWritten()
    {
        var registry = new MetricRegistry();
        Gauge gauge = registry.CreateGauge("pool.free");
        gauge.Set(4, new KeyValuePair<string, object?>("pool", "p"));
        gauge.Set(-3, new KeyValuePair<string, object?>("pool", "p"));
        gauge.Bind(new KeyValuePair<string, object?>("pool", "never.set"));
        registry.CreateDoubleGauge("cache.hit", "1").Set(0.75);
        registry.CreateGauge("unset").Bind();

        Assert.Equal(
            """
            # TYPE pool_free gauge
            pool_free{otel_scope_name="m",pool="p"} -3
            # TYPE cache_hit_ratio gauge
            cache_hit_ratio{otel_scope_name="m"} 0.75

            """.ReplaceLineEndings("\n"),
            await ScrapeAsync(registry));
    }

    [Fact]
    public async Task ObservableInstrumentsAreReadAtEachScrapeAsTheirKind()
    {
        var registry = new MetricRegistry();
        long calls = 0;
        registry.CreateObservableCounter("observed", () => [new Measurement<long>(++calls * 10, s_route)], description: "Read from a callback.");
        registry.CreateObservableUpDownCounter("observed.updown", () => [new Measurement<double>(-2.5)]);
        registry.CreateObservableGauge("observed.gauge", () => [new Measurement<long>(-7)], "By");

        string first = await ScrapeAsync(registry);
        string second = await ScrapeAsync(registry);

        Assert.Equal(
            """
            # HELP observed_total Read from a callback.
            # TYPE observed_total counter
            observed_total{otel_scope_name="m",route="/x"} 10
            # TYPE observed_updown gauge
            observed_updown{otel_scope_name="m"} -2.5
            # TYPE observed_gauge_bytes gauge
            observed_gauge_bytes{otel_scope_name="m"} -7

            """.ReplaceLineEndings("\n"),
            first);
        Assert.Contains("observed_total{otel_scope_name=\"m\",route=\"/x\"} 20\n", second, StringComparison.Ordinal);
    }

    [Fact]
    public async Task AThrowingCallbackLeavesItsInstrumentOutLogsAndTheRestOfTheScrapeIsIntact()
    {
        var registry = new MetricRegistry();
        registry.CreateCounter("before").Add(1);
        registry.CreateObservableGauge("throwing", Unplugged);
        registry.CreateObservableCounter("after.observed", () => [new Measurement<long>(2)]);
        registry.CreateHistogram("after.histogram", boundaries: [1]).Record(0.5);
        var logger = new ListLogger();
        var scraper = new PrometheusScraper(registry, Scope, logger: logger);

        string text = Encoding.UTF8.GetString(await scraper.ScrapeAsync());
        await scraper.ScrapeAsync();

        IReadOnlyList<PrometheusSample> samples = PrometheusText.Parse(text);
        Assert.DoesNotContain("throwing", text, StringComparison.Ordinal);
        Assert.Equal("1", PrometheusText.Single(samples, "before_total").Value);
        Assert.Equal("2", PrometheusText.Single(samples, "after_observed_total").Value);
        Assert.Equal("1", PrometheusText.Single(samples, "after_histogram_count").Value);
        (string message, Exception? exception) = Assert.Single(logger.Entries);
        Assert.Contains("'throwing'", message, StringComparison.Ordinal);
        Assert.Contains("InvalidDataException: sensor unplugged", message, StringComparison.Ordinal);
        Assert.IsType<InvalidDataException>(exception);
    }

    // A callback that throws at every scrape is logged once per cause (the exception's type and
    // message), as the listeners' callbacks are (CallbackFailureLog), not at every scrape with its
    // stack: another cause of the instrument, or the same cause of another instrument, is logged.
    [Fact]
    public async Task AThrowingCallbackIsLoggedOncePerCauseOfEachInstrument()
    {
        var registry = new MetricRegistry();
        string cause = "sensor unplugged";
        registry.CreateObservableGauge("throwing", IEnumerable<Measurement<double>> () => throw new InvalidDataException(cause));
        registry.CreateObservableGauge("also.throwing", Unplugged);
        var logger = new ListLogger();
        var scraper = new PrometheusScraper(registry, Scope, logger: logger);

        for (int i = 0; i < 3; i++)
        {
            await scraper.ScrapeAsync();
        }

        cause = "sensor on fire";
        for (int i = 0; i < 3; i++)
        {
            await scraper.ScrapeAsync(PrometheusExpositionFormat.OpenMetrics);
        }

        Assert.Equal(3, logger.Events.Count);
        Assert.All(logger.Events, e => Assert.Equal((4, LogLevel.Warning), (e.EventId.Id, e.Level)));
        Assert.Single(logger.Messages, m => m.Contains("'throwing'", StringComparison.Ordinal) && m.Contains("sensor unplugged", StringComparison.Ordinal));
        Assert.Single(logger.Messages, m => m.Contains("'throwing'", StringComparison.Ordinal) && m.Contains("sensor on fire", StringComparison.Ordinal));
        Assert.Single(logger.Messages, m => m.Contains("'also.throwing'", StringComparison.Ordinal) && m.Contains("sensor unplugged", StringComparison.Ordinal));
    }

    [Fact]
    public async Task HistogramScrapesDuringConcurrentRecordsAreCumulativeAndCountEqualsInf()
    {
        var registry = new MetricRegistry();
        PartitionedHistogram histogram = registry.CreateHistogram("spread", boundaries: [1, 2, 4, 8]);
        const int Writers = 2;
        const int RecordsPerWriter = 200_000;
        using var start = new Barrier(Writers + 1);
        Task[] writers = [.. Enumerable.Range(0, Writers).Select(w => Task.Run(() =>
        {
            HistogramSeries series = histogram.Bind();
            start.SignalAndWait();
            for (int i = 0; i < RecordsPerWriter; i++)
            {
                series.Record((long)(i % 10));
            }
        }))];
        start.SignalAndWait();

        long previousCount = 0;
        var scraper = new PrometheusScraper(registry, Scope);
        do
        {
            IReadOnlyList<PrometheusSample> samples = PrometheusText.Parse(Encoding.UTF8.GetString(await scraper.ScrapeAsync()));
            long count = AssertHistogramConsistent(samples, "spread");
            Assert.True(count >= previousCount, $"_count went down from {previousCount} to {count}");
            previousCount = count;
        }
        while (!writers.All(w => w.IsCompleted));

        await Task.WhenAll(writers);
        IReadOnlyList<PrometheusSample> final = PrometheusText.Parse(Encoding.UTF8.GetString(await scraper.ScrapeAsync()));
        Assert.Equal(Writers * RecordsPerWriter, AssertHistogramConsistent(final, "spread"));

        // Per 10 records: 0, 1 (le 1), 2 (le 2), 3, 4 (le 4), 5 to 8 (le 8), 9 (+Inf); sum 45.
        Assert.Equal(Writers * RecordsPerWriter / 10 * 2, long.Parse(PrometheusText.Single(final, "spread_bucket", ("le", "1")).Value, CultureInfo.InvariantCulture));
        Assert.Equal(Writers * RecordsPerWriter / 10 * 9, long.Parse(PrometheusText.Single(final, "spread_bucket", ("le", "8")).Value, CultureInfo.InvariantCulture));
        Assert.Equal(Writers * RecordsPerWriter / 10 * 45.0, PrometheusText.Single(final, "spread_sum").NumericValue);
    }

    private static IEnumerable<Measurement<double>> Unplugged() => throw new InvalidDataException("sensor unplugged");

    // Checks every series of the family: buckets in increasing le, counts not decreasing, the last
    // le="+Inf" and equal to _count. Returns the total _count.
    private static long AssertHistogramConsistent(IReadOnlyList<PrometheusSample> samples, string family)
    {
        long total = 0;
        foreach (PrometheusSample count in samples.Where(s => s.Name == family + "_count"))
        {
            PrometheusSample[] buckets = [.. samples.Where(s => s.Name == family + "_bucket"
                && s.Labels.Where(l => l.Key != "le").OrderBy(l => l.Key).SequenceEqual(count.Labels.OrderBy(l => l.Key)))];
            Assert.NotEmpty(buckets);
            Assert.Equal("+Inf", buckets[^1].Labels["le"]);
            for (int i = 1; i < buckets.Length; i++)
            {
                Assert.True(ParseLe(buckets[i].Labels["le"]) > ParseLe(buckets[i - 1].Labels["le"]), "le not increasing");
                Assert.True(buckets[i].NumericValue >= buckets[i - 1].NumericValue, "buckets not cumulative");
            }

            Assert.Equal(count.Value, buckets[^1].Value);
            total += long.Parse(count.Value, CultureInfo.InvariantCulture);
        }

        return total;
    }

    private static double ParseLe(string le) => le == "+Inf" ? double.PositiveInfinity : double.Parse(le, CultureInfo.InvariantCulture);

    private static async Task<string> ScrapeAsync(MetricRegistry registry)
    {
        string text = Encoding.UTF8.GetString(await new PrometheusScraper(registry, Scope).ScrapeAsync());
        PrometheusText.Parse(text);
        return text;
    }
}
