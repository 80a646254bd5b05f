using System.Net;
using System.Text;
using Io.Prometheus.Client;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Hosting;
using Microsoft.AspNetCore.Routing;
using Microsoft.Extensions.DependencyInjection;
using ScalableMetrics.Exporter.Prometheus.Exposition;
using ScalableMetrics.Exporter.Prometheus.Scraping;
using ScalableMetrics.Naming;

namespace ScalableMetrics.Exporter.Tests.Prometheus.Scraping;

/// <summary>
/// UTF-8 names as Prometheus 3 negotiates them, under a UTF-8 name translation
/// (<see cref="PrometheusNameTranslation"/>): the escaping-schemes document's examples as instrument
/// and tag names, in every scheme and every format, read back by the documents' grammar (text 1.0.0
/// and OpenMetrics quoted names) and by client_model's schema (protobuf); the content type that
/// names the escaping applied; and the registry refusing instruments that would be one family under a scheme.
/// </summary>
public sealed class Utf8NamesTests
{
    /// <summary>What Prometheus 3 sends with <c>scrape_protocols</c> protobuf first (native histograms):
    /// no escaping on the protobuf range, which the content-negotiation document gives to the text 1.0.0 ranges only.</summary>
    public const string Prometheus3ProtobufAccept = "application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=delimited;q=0.6,application/openmetrics-text;version=1.0.0;escaping=allow-utf-8;q=0.5,application/openmetrics-text;version=0.0.1;q=0.4,text/plain;version=1.0.0;escaping=allow-utf-8;q=0.3,text/plain;version=0.0.4;q=0.2,*/*;q=0.1";

    private const string Scope = "test.scope";
    private const string OpenMetrics = "application/openmetrics-text; version=1.0.0; charset=utf-8";
    private const string Text100 = "text/plain; version=1.0.0; charset=utf-8";
    private const string Protobuf = "application/vnd.google.protobuf; proto=io.prometheus.client.MetricFamily; encoding=delimited";

    // Each name of the registry below, by scheme: the document's example where it gives one, else its rules.
    private static readonly Dictionary<string, string[]> s_names = new()
    {
        //                    gauge 1 (underscores' example)   gauge 2 (dots' example)               gauge 3 (values' example)  counter sample                 histogram family                                     label
        ["allow-utf-8"] = ["metric.name/with/slashes", "metric.name.with.dots", "metric.name", "http.requests_total", "http.server.request.duration_seconds", "http.route"],
        ["underscores"] = ["metric_name_with_slashes", "metric_name_with_dots", "metric_name", "http_requests_total", "http_server_request_duration_seconds", "http_route"],
        ["dots"] = ["metric_dot_name__with__slashes", "metric_dot_name_dot_with_dot_dots", "metric_dot_name", "http_dot_requests__total", "http_dot_server_dot_request_dot_duration__seconds", "http_dot_route"],
        ["values"] = ["U__metric_2e_name_2f_with_2f_slashes", "U__metric_2e_name_2e_with_2e_dots", "U__metric_2e_name", "U__http_2e_requests__total", "U__http_2e_server_2e_request_2e_duration__seconds", "U__http_2e_route"],
    };

    public static TheoryData<string, PrometheusExpositionFormat> SchemesAndFormats()
    {
        var data = new TheoryData<string, PrometheusExpositionFormat>();
        foreach (string scheme in s_names.Keys)
        {
            foreach (PrometheusExpositionFormat format in Enum.GetValues<PrometheusExpositionFormat>())
            {
                data.Add(scheme, format);
            }
        }

        return data;
    }

    [Theory]
    [InlineData(EscapingNegotiationTests.Prometheus3Accept, "allow-utf-8", OpenMetrics + "; escaping=allow-utf-8")]
    // The content-negotiation document's examples, which spell the scheme allow-utf8.
    [InlineData("application/openmetrics-text;version=1.0.0;escaping=allow-utf8;q=0.5,application/openmetrics-text;version=0.0.1;q=0.4,text/plain;version=1.0.0;escaping=allow-utf8;q=0.3,text/plain;version=0.0.4;q=0.2,*/*;q=0.1", "allow-utf-8", OpenMetrics + "; escaping=allow-utf-8")]
    [InlineData("application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=delimited;q=0.5,application/openmetrics-text;version=1.0.0;escaping=allow-utf8;q=0.4,application/openmetrics-text;version=0.0.1;q=0.3,text/plain;version=1.0.0;escaping=allow-utf8;q=0.2,text/plain;version=0.0.4;q=0.1,*/*;q=0.0", "allow-utf-8", Protobuf + "; escaping=allow-utf-8")]
    [InlineData(Prometheus3ProtobufAccept, "allow-utf-8", Protobuf + "; escaping=allow-utf-8")]
    [InlineData("text/plain;version=1.0.0;escaping=allow-utf-8", "allow-utf-8", Text100 + "; escaping=allow-utf-8")]
    [InlineData("text/plain;version=1.0.0;escaping=dots", "dots", Text100 + "; escaping=dots")]
    [InlineData("application/openmetrics-text;version=1.0.0;escaping=values", "values", OpenMetrics + "; escaping=values")]
    [InlineData("application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=delimited;escaping=dots", "dots", Protobuf + "; escaping=dots")]
    [InlineData("application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=delimited", "underscores", Protobuf + "; escaping=underscores")]
    [InlineData("application/openmetrics-text;version=1.0.0;escaping=underscores", "underscores", OpenMetrics + "; escaping=underscores")]
    [InlineData("application/openmetrics-text;version=1.0.0", "underscores", OpenMetrics + "; escaping=underscores")]
    // Text 0.0.4 has legacy names only: the default translation's, whatever is asked, and no escaping named.
    [InlineData("text/plain;version=0.0.4;escaping=allow-utf-8", "underscores", PrometheusScraper.ContentType)]
    [InlineData(null, "underscores", PrometheusScraper.ContentType)]
    public void AUtf8TranslationAnswersTheSchemeAskedAndNamesIt(string? accept, string written, string contentType)
    {
        foreach (PrometheusNameTranslation translation in (PrometheusNameTranslation[])[PrometheusNameTranslation.NoUTF8EscapingWithSuffixes, PrometheusNameTranslation.NoTranslation])
        {
            (_, EscapingScheme escaping, string answered) = ScrapeNegotiation.Negotiate(accept, translation);
            Assert.Equal(contentType, answered);
            Assert.Equal(ScrapeNegotiation.ParseEscaping(written), escaping);
        }

        // The default translation writes its names whatever the scheme, and answers allow-utf-8 with underscores.
        (_, EscapingScheme defaultEscaping, string defaultType) = ScrapeNegotiation.Negotiate(accept, PrometheusNameTranslation.UnderscoreEscapingWithSuffixes);
        Assert.Equal(EscapingScheme.Underscores, defaultEscaping);
        Assert.Equal(contentType.Replace("escaping=allow-utf-8", "escaping=underscores", StringComparison.Ordinal), defaultType);
    }

    [Theory]
    [MemberData(nameof(SchemesAndFormats))]
    public async Task EverySchemeWritesTheDocumentsNamesInEveryFormat(string scheme, PrometheusExpositionFormat format)
    {
        MetricRegistry registry = DocumentExamples();
        using var scraper = new PrometheusScraper(registry, Scope) { NameTranslation = PrometheusNameTranslation.NoUTF8EscapingWithSuffixes };
        EscapingScheme escaping = ScrapeNegotiation.ParseEscaping(scheme)!.Value;
        byte[] body = await scraper.ScrapeAsync(ExpositionFormat.Of(format), escaping);
        string[] names = s_names[scheme];
        ExposedSeries.AssertNoneRepeated(format, body, utf8Names: escaping == EscapingScheme.AllowUtf8);

        // Each series read back under its name and labels as the scheme writes them.
        IReadOnlyList<PrometheusSample> samples = format switch
        {
            PrometheusExpositionFormat.Text => PrometheusText.Parse(Encoding.UTF8.GetString(body), utf8Names: escaping == EscapingScheme.AllowUtf8),
            PrometheusExpositionFormat.OpenMetrics => PrometheusText.ParseOpenMetrics(Encoding.UTF8.GetString(body), utf8Names: escaping == EscapingScheme.AllowUtf8),
            _ => ProtobufSamples(body),
        };

        Assert.Equal(3, PrometheusText.Single(samples, names[0], (names[5], "/a")).NumericValue);
        Assert.Equal(5, PrometheusText.Single(samples, names[1]).NumericValue);
        Assert.Equal(7, PrometheusText.Single(samples, names[2]).NumericValue);
        Assert.Equal(11, PrometheusText.Single(samples, names[3], (names[5], "/b")).NumericValue);
        Assert.Equal(1, PrometheusText.Single(samples, names[4] + "_count").NumericValue);
        if (format != PrometheusExpositionFormat.Protobuf)
        {
            Assert.Equal(1, PrometheusText.Single(samples, names[4] + "_bucket", ("le", "0.1")).NumericValue);
        }

        // Every other name left as it is: the scope label.
        Assert.All(samples, sample => Assert.Equal(Scope, sample.Labels[ExportedNames.ScopeNameLabel]));
    }

    [Fact]
    public async Task AllowUtf8QuotesTheNamesOutsideTheLegacySetAsTheTextGrammarsSay()
    {
        MetricRegistry registry = DocumentExamples();
        using var scraper = new PrometheusScraper(registry, Scope) { NameTranslation = PrometheusNameTranslation.NoUTF8EscapingWithSuffixes };
        string text = Encoding.UTF8.GetString(await scraper.ScrapeAsync(ExpositionFormat.Text, EscapingScheme.AllowUtf8));
        Assert.Contains("# TYPE \"http.server.request.duration_seconds\" histogram\n", text, StringComparison.Ordinal);
        Assert.Contains("\n{\"http.server.request.duration_seconds_bucket\",otel_scope_name=\"test.scope\",le=\"0.1\"} 1\n", text, StringComparison.Ordinal);
        Assert.Contains("\n{\"http.server.request.duration_seconds_count\",otel_scope_name=\"test.scope\"} 1\n", text, StringComparison.Ordinal);
        Assert.Contains("\n{\"metric.name/with/slashes\",otel_scope_name=\"test.scope\",\"http.route\"=\"/a\"} 3\n", text, StringComparison.Ordinal);
        Assert.Contains("\n{\"http.requests_total\",otel_scope_name=\"test.scope\",\"http.route\"=\"/b\"} 11\n", text, StringComparison.Ordinal);

        string openMetrics = Encoding.UTF8.GetString(await scraper.ScrapeAsync(ExpositionFormat.OpenMetrics, EscapingScheme.AllowUtf8));
        Assert.Contains("# TYPE \"http.requests\" counter\n", openMetrics, StringComparison.Ordinal);
        Assert.Contains("# UNIT \"http.server.request.duration_seconds\" seconds\n", openMetrics, StringComparison.Ordinal);
        Assert.Contains("\n{\"http.server.request.duration_seconds_bucket\",otel_scope_name=\"test.scope\",le=\"0.1\"} 1\n", openMetrics, StringComparison.Ordinal);
        Assert.Equal(["metric.name/with/slashes", "metric.name.with.dots", "metric.name", "http.requests", "http.server.request.duration_seconds", "plain_gauge", "odd.key"], PrometheusText.TypedFamilies(openMetrics, utf8Names: true));

        // A name that needs no quotes gets none, and a quote or backslash in a quoted name is escaped.
        Assert.Contains("\nplain_gauge{otel_scope_name=\"test.scope\"} 1\n", text, StringComparison.Ordinal);
        Assert.Contains("\n{\"odd.key\",otel_scope_name=\"test.scope\",\"a\\\"b\\\\c\"=\"x\"} 1\n", text, StringComparison.Ordinal);
    }

    [Fact]
    public async Task NoTranslationWritesTheInstrumentNamesWithoutUnitSuffixes()
    {
        MetricRegistry registry = DocumentExamples();
        registry.CreateGauge("cpu.utilization", "1").Set(1);
        using var scraper = new PrometheusScraper(registry, Scope) { NameTranslation = PrometheusNameTranslation.NoTranslation };
        string text = Encoding.UTF8.GetString(await scraper.ScrapeAsync(ExpositionFormat.Text, EscapingScheme.AllowUtf8));
        ExposedSeries.AssertNoneRepeated(PrometheusExpositionFormat.Text, Encoding.UTF8.GetBytes(text), utf8Names: true);
        Assert.Contains("\n{\"http.server.request.duration_bucket\",otel_scope_name=\"test.scope\",le=\"0.1\"} 1\n", text, StringComparison.Ordinal);
        Assert.Contains("\n{\"cpu.utilization\",otel_scope_name=\"test.scope\"} 1\n", text, StringComparison.Ordinal);

        // OpenMetrics requires a counter sample's _total: kept in every format, one name to store.
        Assert.Contains("\n{\"http.requests_total\",otel_scope_name=\"test.scope\",\"http.route\"=\"/b\"} 11\n", text, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData(PrometheusExpositionFormat.Text)]
    [InlineData(PrometheusExpositionFormat.OpenMetrics)]
    [InlineData(PrometheusExpositionFormat.Protobuf)]
    public async Task UnderscoresIsTheDefaultTranslationsBodyByteForByte(PrometheusExpositionFormat format)
    {
        MetricRegistry registry = DocumentExamples();
        using var byDefault = new PrometheusScraper(registry, Scope);
        using var utf8 = new PrometheusScraper(registry, Scope) { NameTranslation = PrometheusNameTranslation.NoUTF8EscapingWithSuffixes };
        byte[] expected = await byDefault.ScrapeAsync(format);
        Assert.Equal(expected, await utf8.ScrapeAsync(format));
        Assert.Equal(expected, await utf8.ScrapeAsync(ExpositionFormat.Of(format), EscapingScheme.Underscores));

        // Under the default translation, every scheme writes that body.
        foreach (EscapingScheme scheme in Enum.GetValues<EscapingScheme>())
        {
            Assert.Equal(expected, await byDefault.ScrapeAsync(ExpositionFormat.Of(format), scheme));
        }
    }

    [Fact]
    public void InstrumentsThatWouldBeOneFamilyUnderASchemeAreRefusedAtCreation()
    {
        // Under the default translation a.b and a_dot_b never meet: a_b and a_dot_b in every scrape.
        var registry = new MetricRegistry();
        registry.CreateUpDownCounter("a.b");
        registry.CreateUpDownCounter("a_dot_b");
        ArgumentException existing = Assert.Throws<ArgumentException>(() => new PrometheusScraper(registry, Scope) { NameTranslation = PrometheusNameTranslation.NoUTF8EscapingWithSuffixes });
        Assert.Equal(nameof(PrometheusScraper.NameTranslation), existing.ParamName);
        Assert.Contains("'a.b'", existing.Message, StringComparison.Ordinal);
        Assert.Contains("'a_dot_b'", existing.Message, StringComparison.Ordinal);
        Assert.Contains("escaping=dots", existing.Message, StringComparison.Ordinal);

        // Once a UTF-8 translation is set, the second of two such instruments is refused, naming both.
        var translated = new MetricRegistry();
        using var scraper = new PrometheusScraper(translated, Scope) { NameTranslation = PrometheusNameTranslation.NoTranslation };
        translated.CreateUpDownCounter("a.b");
        ArgumentException dots = Assert.Throws<ArgumentException>(() => translated.CreateUpDownCounter("a_dot_b"));
        Assert.Equal("name", dots.ParamName);
        Assert.Contains("'a.b'", dots.Message, StringComparison.Ordinal);
        Assert.Contains("'a_dot_b'", dots.Message, StringComparison.Ordinal);
        ArgumentException values = Assert.Throws<ArgumentException>(() => translated.CreateUpDownCounter("U__a_2e_b"));
        Assert.Contains("escaping=values", values.Message, StringComparison.Ordinal);

        // What meets under underscores is refused whatever the translation, as before.
        Assert.Throws<ArgumentException>(() => translated.CreateUpDownCounter("a_b"));
        Assert.Equal(["a.b"], translated.Instruments.Select(static i => i.Name));
    }

    [Fact]
    public async Task TwoInstrumentsOfAListenedMeterThatMeetUnderASchemeAreNotOneFamilyTwice()
    {
        // A listened meter's instruments are not refused at creation (another library made them):
        // the scrape writes the first and leaves the second out, logged, as it does names that meet under underscores.
        using var listened = new ListenedMeter();
        listened.Meter.CreateUpDownCounter<long>("a.b").Add(1);
        listened.Meter.CreateUpDownCounter<long>("a_dot_b").Add(2);
        var log = new ListLogger();
        using var scraper = new PrometheusScraper(new MetricRegistry(), Scope, null, log, listened.Host) { NameTranslation = PrometheusNameTranslation.NoUTF8EscapingWithSuffixes };

        byte[] dots = await scraper.ScrapeAsync(ExpositionFormat.Text, EscapingScheme.Dots);
        IReadOnlyList<PrometheusSample> samples = PrometheusText.Parse(Encoding.UTF8.GetString(dots));
        Assert.Equal(1, Assert.Single(samples, static s => s.Name == "a_dot_b").NumericValue);
        Assert.Contains(log.Events, static e => e.Level == Microsoft.Extensions.Logging.LogLevel.Warning && e.Message.Contains("'a_dot_b'", StringComparison.Ordinal));

        // Where they do not meet, both are written.
        byte[] utf8 = await scraper.ScrapeAsync(ExpositionFormat.Text, EscapingScheme.AllowUtf8);
        IReadOnlyList<PrometheusSample> apart = PrometheusText.Parse(Encoding.UTF8.GetString(utf8), utf8Names: true);
        Assert.Equal(1, Assert.Single(apart, static s => s.Name == "a.b").NumericValue);
        Assert.Equal(2, Assert.Single(apart, static s => s.Name == "a_dot_b").NumericValue);
    }

    [Theory]
    [InlineData("dots", "a_dot_b")]
    [InlineData("values", "U__a_2e_b")]
    public async Task TwoSeriesWhoseTagKeysMeetUnderASchemeStayTwoSeries(string scheme, string otherKey)
    {
        // a.b escapes to the other key under the scheme: two series of one instrument that escaping
        // legacy-valid names as they are would write as one.
        var registry = new MetricRegistry();
        PartitionedCounter counter = registry.CreateCounter("requests");
        counter.Add(1, new KeyValuePair<string, object?>("a.b", "x"));
        counter.Add(2, new KeyValuePair<string, object?>(otherKey, "x"));
        using var scraper = new PrometheusScraper(registry, Scope) { NameTranslation = PrometheusNameTranslation.NoUTF8EscapingWithSuffixes };
        foreach (PrometheusExpositionFormat format in Enum.GetValues<PrometheusExpositionFormat>())
        {
            byte[] body = await scraper.ScrapeAsync(ExpositionFormat.Of(format), ScrapeNegotiation.ParseEscaping(scheme)!.Value);
            ExposedSeries.AssertNoneRepeated(format, body);
        }

        string text = Encoding.UTF8.GetString(await scraper.ScrapeAsync(ExpositionFormat.Text, ScrapeNegotiation.ParseEscaping(scheme)!.Value));
        Assert.Equal(2, PrometheusText.Parse(text).Count(static s => s.Name == "requests_total"));
    }

    [Fact]
    public void AnUndefinedTranslationIsRefused()
    {
        var registry = new MetricRegistry();
        ArgumentOutOfRangeException refused = Assert.Throws<ArgumentOutOfRangeException>(() => new PrometheusScraper(registry, Scope) { NameTranslation = (PrometheusNameTranslation)7 });
        Assert.Equal(nameof(PrometheusScraper.NameTranslation), refused.ParamName);
    }

    [Fact]
    public async Task Prometheus3sHeadersGetUtf8NamesThroughTheEndpoint()
    {
        WebApplicationBuilder builder = WebApplication.CreateBuilder();
        builder.WebHost.UseUrls("http://127.0.0.1:0");
        builder.Services.AddScalableMetrics(o =>
        {
            o.ExportSelfMetrics = false;
            o.NameTranslation = PrometheusNameTranslation.NoUTF8EscapingWithSuffixes;
        });
        await using WebApplication app = builder.Build();
        app.MapScalableMetrics();
        await app.StartAsync();
        MetricRegistry registry = app.Services.GetRequiredService<MetricRegistry>();
        registry.CreateUpDownCounter("metric.name.with.dots").Add(5, new KeyValuePair<string, object?>("http.route", "/a"));
        using var client = new HttpClient { BaseAddress = new Uri(Assert.Single(app.Urls)) };

        (string openMetricsType, byte[] openMetrics) = await Scrape(client, EscapingNegotiationTests.Prometheus3Accept);
        Assert.Equal(OpenMetrics + "; escaping=allow-utf-8", openMetricsType);
        Assert.Contains("\n{\"metric.name.with.dots\",otel_scope_name=\"ScalableMetrics\",\"http.route\"=\"/a\"} 5\n", Encoding.UTF8.GetString(openMetrics), StringComparison.Ordinal);

        (string protobufType, byte[] protobuf) = await Scrape(client, Prometheus3ProtobufAccept);
        Assert.Equal(Protobuf + "; escaping=allow-utf-8", protobufType);
        Assert.Equal(5, PrometheusText.Single(ProtobufSamples(protobuf), "metric.name.with.dots", ("http.route", "/a")).NumericValue);

        // A scraper that allows no UTF-8 names gets the default translation's.
        (string textType, byte[] text) = await Scrape(client, "text/plain;version=0.0.4");
        Assert.Equal(PrometheusScraper.ContentType, textType);
        Assert.Contains("\nmetric_name_with_dots{otel_scope_name=\"ScalableMetrics\",http_route=\"/a\"} 5\n", Encoding.UTF8.GetString(text), StringComparison.Ordinal);
    }

    // The escaping-schemes document's three examples as gauges (no suffix, so the example is the whole
    // name), a counter and a histogram with a unit, tags named as OpenTelemetry names them.
    private static MetricRegistry DocumentExamples()
    {
        var registry = new MetricRegistry();
        registry.CreateUpDownCounter("metric.name/with/slashes").Add(3, new KeyValuePair<string, object?>("http.route", "/a"));
        registry.CreateUpDownCounter("metric.name.with.dots").Add(5);
        registry.CreateUpDownCounter("metric.name").Add(7);
        registry.CreateCounter("http.requests", "{request}").Add(11, new KeyValuePair<string, object?>("http.route", "/b"));
        registry.CreateHistogram("http.server.request.duration", "s", boundaries: [0.1, 1]).Record(0.05);
        registry.CreateGauge("plain_gauge").Set(1);
        registry.CreateGauge("odd.key").Set(1, new KeyValuePair<string, object?>("a\"b\\c", "x"));
        return registry;
    }

    // Each Metric message of a protobuf scrape as a sample: the family name (a histogram's as its _count), its labels, its value.
    private static List<PrometheusSample> ProtobufSamples(byte[] body)
    {
        var samples = new List<PrometheusSample>();
        using var stream = new MemoryStream(body);
        while (stream.Position < stream.Length)
        {
            MetricFamily family = MetricFamily.Parser.ParseDelimitedFrom(stream);
            foreach (Metric metric in family.Metric)
            {
                Dictionary<string, string> labels = metric.Label.ToDictionary(static l => l.Name, static l => l.Value, StringComparer.Ordinal);
                (string name, double value) = family.Type switch
                {
                    MetricType.Counter => (family.Name, metric.Counter.Value),
                    MetricType.Gauge => (family.Name, metric.Gauge.Value),
                    MetricType.Histogram => (family.Name + "_count", (double)metric.Histogram.SampleCount),
                    _ => (family.Name, double.NaN),
                };
                samples.Add(new PrometheusSample(name, labels, value.ToString(System.Globalization.CultureInfo.InvariantCulture)));
            }
        }

        return samples;
    }

    private static async Task<(string ContentType, byte[] Body)> Scrape(HttpClient client, string accept)
    {
        using var request = new HttpRequestMessage(HttpMethod.Get, "/metrics");
        request.Headers.TryAddWithoutValidation("Accept", accept);
        using HttpResponseMessage response = await client.SendAsync(request);
        Assert.Equal(HttpStatusCode.OK, response.StatusCode);
        return (response.Content.Headers.ContentType!.ToString(), await response.Content.ReadAsByteArrayAsync());
    }
}
