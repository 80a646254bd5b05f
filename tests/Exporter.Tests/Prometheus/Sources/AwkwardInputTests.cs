using System.Text;

namespace ScalableMetrics.Exporter.Tests.Prometheus.Sources;

/// <summary>
/// Bad and awkward inputs through the public API, each checked on the scrape by the strict parser
/// with its exact name, labels and value; and bad inputs refused before anything is recorded.
/// </summary>
public sealed class AwkwardInputTests
{
    private const string Scope = "test.awkward";

    public static TheoryData<string> Rows => [.. s_rows.Keys];

    private static readonly Dictionary<string, Row> s_rows = new()
    {
        ["dots, dashes and slashes in the name"] = new(r => r.CreateCounter("http.server-requests/served").Add(5), "http_server_requests_served_total", [], "5"),
        ["name already ending in the suffix"] = new(r => r.CreateCounter("jobs.total").Add(1), "jobs_total", [], "1"),
        ["unit By"] = new(r => r.CreateCounter("bytes.sent", "By").Add(1024), "bytes_sent_bytes_total", [], "1024"),
        ["unit s"] = new(r => r.CreateCounter("cpu.time", "s").Add(3), "cpu_time_seconds_total", [], "3"),
        ["unit per second"] = new(r => r.CreateCounter("packets", "{packet}/s").Add(2), "packets_per_second_total", [], "2"),
        ["annotation-only unit"] = new(r => r.CreateCounter("webapi.requests", "{request}").Add(7), "webapi_requests_total", [], "7"),
        ["quote, backslash, newline in a value"] = new(
            r => r.CreateCounter("escaped").Add(1, Tag("path", "a\"b\\c\nd")),
            "escaped_total", [("path", "a\"b\\c\nd")], "1"),
        ["unicode key and value"] = new(
            r => r.CreateCounter("unicode").Add(2, Tag("città", "naïve ✓ 日本")),
            "unicode_total", [("citt_", "naïve ✓ 日本")], "2"),
        ["dots and dashes in keys"] = new(
            r => r.CreateCounter("keys").Add(3, Tag("http.response.status-code", 404L)),
            "keys_total", [("http_response_status_code", "404")], "3"),
        ["key starting with a digit"] = new(
            r => r.CreateCounter("odd.keys").Add(4, Tag("1st", "a"), Tag("x", "b")),
            "odd_keys_total", [("key_1st", "a"), ("x", "b")], "4"),
        ["number, bool and double values"] = new(
            r => r.CreateCounter("typed").Add(6, Tag("code", 200), Tag("ok", true), Tag("ratio", 0.1), Tag("big", long.MaxValue)),
            "typed_total", [("code", "200"), ("ok", "true"), ("ratio", "0.1"), ("big", "9223372036854775807")], "6"),
        ["string 200"] = new(
            r => r.CreateCounter("typed.string").Add(8, Tag("code", "200")),
            "typed_string_total", [("code", "200")], "8"),
        ["empty value: no label"] = new(
            r => r.CreateCounter("empty.value").Add(9, Tag("a", ""), Tag("b", "x")),
            "empty_value_total", [("b", "x")], "9"),
        ["large counter"] = new(
            r => r.CreateCounter("large").Add(long.MaxValue),
            "large_total", [], "9223372036854775807"),
        ["operation sum in seconds"] = new(
            r => r.CreateOperationData("db.query-time").Record(TimeSpan.FromMilliseconds(250), Tag("db", "users")),
            "db_query_time_seconds_sum", [("db", "users")], "0.25"),
        ["operation count"] = new(
            r =>
            {
                OperationData operation = r.CreateOperationData("db.calls");
                operation.Record(TimeSpan.FromSeconds(1));
                operation.Record(TimeSpan.FromSeconds(2));
            },
            "db_calls_seconds_count", [], "2"),
    };

    [Theory]
    [MemberData(nameof(Rows))]
    public async Task EachInputReadsBackExactlyOnTheScrape(string row)
    {
        Row expected = s_rows[row];
        var registry = new MetricRegistry();
        expected.Record(registry);

        IReadOnlyList<PrometheusSample> samples = PrometheusText.Parse(Encoding.UTF8.GetString(await new PrometheusScraper(registry, Scope).ScrapeAsync()));

        var labels = expected.Labels.ToDictionary(l => l.Name, l => l.Value);
        labels.Add("otel_scope_name", Scope);
        Assert.Equal(expected.Value, PrometheusText.Exact(samples, expected.Sample, labels).Value);
    }

    [Theory]
    [InlineData("otel_scope_name")]
    [InlineData("otel.scope.version")]
    [InlineData("__name__")]
    [InlineData("le")]
    public async Task TagsThatWouldSpoofALabelTheExpositionWritesAreRefusedAndNothingIsRecorded(string key)
    {
        var registry = new MetricRegistry();
        PartitionedCounter counter = registry.CreateCounter("spoof");

        Assert.Throws<ArgumentException>(() => counter.Add(1, Tag(key, "evil")));

        IReadOnlyList<PrometheusSample> samples = PrometheusText.Parse(Encoding.UTF8.GetString(await new PrometheusScraper(registry, Scope).ScrapeAsync()));
        Assert.DoesNotContain(samples, s => s.Name == "spoof_total");
        Assert.Equal(0, counter.SeriesCount);
    }

    [Fact]
    public async Task TheSamplesAwkwardSeriesScrapeStrictlyWithTheMergedSums()
    {
        // What scripts/e2e.sh has a real Prometheus read back, checked here on the text.
        var registry = new MetricRegistry();
        ScalableMetrics.Samples.WebApi.AwkwardSeries.Record(registry);

        IReadOnlyList<PrometheusSample> samples = PrometheusText.Parse(Encoding.UTF8.GetString(await new PrometheusScraper(registry, Scope).ScrapeAsync()));

        Assert.Equal("21", PrometheusText.Single(samples, "awkward_merged_total", ("code", "200")).Value);
        Assert.Equal("15", PrometheusText.Exact(samples, "awkward_merged_total", new Dictionary<string, string> { ["otel_scope_name"] = Scope }).Value);
        Assert.Equal("120", PrometheusText.Single(samples, "awkward_spellings_total", ("http_route", "/x")).Value);
        Assert.Equal(2, samples.Count(s => s.Name == "awkward_merged_total"));
        Assert.Equal(ScalableMetrics.Samples.WebApi.AwkwardSeries.OverflowTagSets, samples.Where(s => s.Name == "awkward_overflow_total").Sum(s => s.NumericValue));
    }

    [Fact]
    public async Task HelpTextEscapesBackslashAndNewline()
    {
        var registry = new MetricRegistry();
        registry.CreateCounter("helped", description: "Line one\nback\\slash \"quoted\"").Add(1);

        string text = Encoding.UTF8.GetString(await new PrometheusScraper(registry, Scope).ScrapeAsync());

        PrometheusText.Parse(text);
        Assert.StartsWith("# HELP helped_total Line one\\nback\\\\slash \"quoted\"\n# TYPE helped_total counter\n", text);
    }

    [Fact]
    public async Task BadInputsAreRefusedAndNothingIsRecorded()
    {
        var registry = new MetricRegistry();
        PartitionedCounter counter = registry.CreateCounter("guarded");

        Assert.Throws<ArgumentOutOfRangeException>(() => counter.Add(-1));
        Assert.Throws<ArgumentException>(() => counter.Add(1, Tag("", "x")));
        Assert.Throws<ArgumentException>(() => counter.Add(1, Tag("k", null)));
        Assert.Throws<ArgumentException>(() => counter.Add(1, Tag("k", new object())));
        Assert.Throws<ArgumentException>(() => counter.Add(1, Tag("k", "a"), Tag("k", "b")));
        Assert.Throws<ArgumentOutOfRangeException>(() => registry.CreateOperationData("timed").Record(TimeSpan.FromTicks(-1)));
        Assert.Throws<ArgumentException>(() => registry.CreateCounter("9starts.with.digit"));
        Assert.Throws<ArgumentException>(() => registry.CreateCounter("has space"));

        string text = Encoding.UTF8.GetString(await new PrometheusScraper(registry, Scope).ScrapeAsync());

        Assert.Empty(PrometheusText.Parse(text));
    }

    private static KeyValuePair<string, object?> Tag(string key, object? value) => new(key, value);

    private sealed record Row(Action<MetricRegistry> Record, string Sample, (string Name, string Value)[] Labels, string Value);
}
