using System.Diagnostics;
using System.Globalization;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Hosting;
using Microsoft.AspNetCore.Routing;
using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Options;
using ScalableMetrics.Exporter.Listening;

namespace ScalableMetrics.Exporter.Tests.Views;

/// <summary>
/// Each kind of view on a listened ASP.NET Core instrument, <c>http.server.request.duration</c> of
/// the <c>Microsoft.AspNetCore.Hosting</c> meter, in a real host: what the scrape shows after a
/// bounded number of requests to 127.0.0.1.
/// </summary>
public sealed class ListenedViewTests
{
    private const string Hosting = "Microsoft.AspNetCore.Hosting";
    private const string Duration = "http.server.request.duration";
    private const int Requests = 3;

    [Fact]
    public async Task ARenamedInstrumentIsExportedUnderItsNewNameOnly()
    {
        string text = await ScrapeAfterRequests(new MetricView { Meter = Hosting, Instrument = Duration, Name = "app.request.duration" });
        IReadOnlyList<PrometheusSample> samples = PrometheusText.Parse(text);
        Assert.Equal(Requests, PrometheusText.Single(samples, "app_request_duration_seconds_count", ("http_route", "/hello")).NumericValue);
        Assert.DoesNotContain("http_server_request_duration", text, StringComparison.Ordinal);
    }

    [Fact]
    public async Task ADroppedInstrumentIsNotExportedAndTheMetersOthersAre()
    {
        string text = await ScrapeAfterRequests(new MetricView { Meter = Hosting, Instrument = Duration, Drop = true }, waitForCount: false);
        Assert.DoesNotContain("http_server_request_duration", text, StringComparison.Ordinal);
        Assert.Contains("# TYPE http_server_active_requests gauge\n", text, StringComparison.Ordinal);
    }

    [Fact]
    public async Task ExcludedTagKeysAreNotLabelsAndTheCountIsWhole()
    {
        string text = await ScrapeAfterRequests(new MetricView { Meter = Hosting, Instrument = Duration, ExcludedTagKeys = ["url.scheme", "network.protocol.version"] });
        PrometheusSample[] counts = [.. PrometheusText.Parse(text).Where(s => s.Name == "http_server_request_duration_seconds_count")];
        Assert.NotEmpty(counts);
        Assert.All(counts, s => Assert.False(s.Labels.ContainsKey("url_scheme") || s.Labels.ContainsKey("network_protocol_version"), string.Join(",", s.Labels.Keys)));
        Assert.Equal(Requests, Assert.Single(counts, s => s.Labels.GetValueOrDefault("http_route") == "/hello").NumericValue);
    }

    [Fact]
    public async Task TagKeysKeepOnlyTheListedKeys()
    {
        string text = await ScrapeAfterRequests(new MetricView { Meter = Hosting, Instrument = Duration, TagKeys = ["http.route"] });
        PrometheusSample[] counts = [.. PrometheusText.Parse(text).Where(s => s.Name == "http_server_request_duration_seconds_count")];
        Assert.All(counts, s => Assert.Equal(["http_route", "otel_scope_name"], s.Labels.Keys.Order(StringComparer.Ordinal)));
        Assert.Equal(Requests, Assert.Single(counts, s => s.Labels["http_route"] == "/hello").NumericValue);
    }

    [Fact]
    public async Task AViewsBoundariesReplaceTheAdvisedOnes()
    {
        string text = await ScrapeAfterRequests(new MetricView { Meter = Hosting, Instrument = Duration, HistogramBoundaries = [0.5, 30, 60] });
        PrometheusSample[] buckets = [.. PrometheusText.Parse(text).Where(s => s.Name == "http_server_request_duration_seconds_bucket" && s.Labels.GetValueOrDefault("http_route") == "/hello")];
        Assert.Equal(["0.5", "30", "60", "+Inf"], buckets.Select(b => b.Labels["le"]));
        Assert.Equal(Requests, buckets[^1].NumericValue);
    }

    [Fact]
    public async Task AnExponentialViewMakesTheListenedHistogramANativeOneOfItsScale()
    {
        MeterListenerHost? host = null;
        string text = await ScrapeAfterRequests(new MetricView { Meter = Hosting, Instrument = Duration, ExponentialHistogram = true, ExponentialHistogramScale = 2, ExponentialHistogramMaxBuckets = 50 }, onStarted: app => host = app.Services.GetRequiredService<MeterListenerHost>());
        PartitionedExponentialHistogram histogram = Assert.IsType<PartitionedExponentialHistogram>(
            Assert.Single(host!.Scopes.Single(s => s.MeterName == Hosting).Registry.Instruments, i => i.Name == Duration));
        Assert.Equal((2, 50), (histogram.Scale, histogram.MaxBuckets));
        Assert.Equal(Requests, Assert.Single(histogram.Collect(), r => r.Tags.Any(t => t.Key == "http.route" && (string?)t.Value == "/hello")).Count);
        Assert.Equal(Requests, PrometheusText.Single(PrometheusText.Parse(text), "http_server_request_duration_seconds_count", ("http_route", "/hello")).NumericValue);
    }

    [Fact]
    public async Task ACardinalityLimitOfItsOwnSendsFurtherRoutesToTheOverflowSeries()
    {
        string text = await ScrapeAfterRequests(new MetricView { Meter = Hosting, Instrument = Duration, TagKeys = ["http.route"], CardinalityLimit = 2 }, paths: ["/hello", "/a", "/b", "/c"]);
        PrometheusSample[] counts = [.. PrometheusText.Parse(text).Where(s => s.Name == "http_server_request_duration_seconds_count")];
        Assert.Equal(3, counts.Length);
        PrometheusSample overflow = Assert.Single(counts, s => s.Labels.GetValueOrDefault("otel_metric_overflow") == "true");
        Assert.Equal(4 * Requests, counts.Sum(s => s.NumericValue));
        Assert.True(overflow.NumericValue >= Requests, overflow.Value);
    }

    [Fact]
    public async Task AnExemplarFilterOfItsOwnKeepsTheTraceOfTheRequestsOnTheListenedHistogram()
    {
        using var listener = new ActivityListener
        {
            ShouldListenTo = static source => source.Name == Hosting,
            Sample = static (ref ActivityCreationOptions<ActivityContext> _) => ActivitySamplingResult.AllDataAndRecorded,
        };
        ActivitySource.AddActivityListener(listener);
        string traceId = ActivityTraceId.CreateRandom().ToHexString();
        string text = await ScrapeAfterRequests(
            new MetricView { Meter = Hosting, Instrument = Duration, ExemplarFilter = ExemplarFilter.TraceBased },
            traceparent: $"00-{traceId}-{ActivitySpanId.CreateRandom().ToHexString()}-01",
            openMetrics: true);
        string[] bucketLines = [.. text.Split('\n').Where(l => l.StartsWith("http_server_request_duration_seconds_bucket{", StringComparison.Ordinal))];
        Assert.Contains(bucketLines, l => l.Contains("# {", StringComparison.Ordinal) && l.Contains(traceId, StringComparison.Ordinal));

        // The registry's own filter (None) still applies to the meter's other instruments: no exemplar anywhere else.
        Assert.DoesNotContain(text.Split('\n'), l => !l.StartsWith("http_server_request_duration_seconds_bucket{", StringComparison.Ordinal) && l.Contains(" # {", StringComparison.Ordinal));
    }

    [Fact]
    public void ViewsAreBoundFromTheScalableMetricsConfigurationSection()
    {
        IConfiguration configuration = new ConfigurationBuilder().AddInMemoryCollection(new Dictionary<string, string?>
        {
            ["ScalableMetrics:Registry:Views:0:Meter"] = Hosting,
            ["ScalableMetrics:Registry:Views:0:Instrument"] = Duration,
            ["ScalableMetrics:Registry:Views:0:ExcludedTagKeys:0"] = "url.scheme",
            ["ScalableMetrics:Registry:Views:0:HistogramBoundaries:0"] = "0.5",
            ["ScalableMetrics:Registry:Views:0:HistogramBoundaries:1"] = "30",
            ["ScalableMetrics:Registry:Views:0:CardinalityLimit"] = "100",
            ["ScalableMetrics:Registry:Views:0:ExemplarFilter"] = "TraceBased",
            ["ScalableMetrics:Registry:Views:1:Instrument"] = "kestrel.*",
            ["ScalableMetrics:Registry:Views:1:Drop"] = "true",
        }).Build();
        var services = new ServiceCollection();
        services.AddOptions<ScalableMetricsOptions>().Bind(configuration.GetSection("ScalableMetrics"));
        services.AddScalableMetrics();
        using ServiceProvider provider = services.BuildServiceProvider();

        IList<MetricView> views = provider.GetRequiredService<IOptions<ScalableMetricsOptions>>().Value.Registry.Views;
        Assert.Equal(2, views.Count);
        Assert.Equal((Hosting, Duration, 100, ExemplarFilter.TraceBased), (views[0].Meter, views[0].Instrument, views[0].CardinalityLimit, views[0].ExemplarFilter));
        Assert.Equal(["url.scheme"], views[0].ExcludedTagKeys);
        Assert.Equal([0.5, 30], views[0].HistogramBoundaries);
        Assert.True(views[1].Drop);
    }

    [Fact]
    public void AnInvalidViewKeepsTheHostFromStartingAndTheFailureNamesIt()
    {
        var options = new ScalableMetricsOptions();
        options.Registry.Views.Add(new MetricView { Instrument = "http.*", Name = "one.name" });
        ValidateOptionsResult result = new ScalableMetrics.Exporter.Hosting.ScalableMetricsOptionsValidator().Validate(null, options);
        Assert.True(result.Failed);
        Assert.Contains("Views[0]", result.FailureMessage, StringComparison.Ordinal);
    }

    [Fact]
    public void TwoListenedInstrumentsRenamedToOneNameAreRefusedAtTheSecondAndTheLogNamesBoth()
    {
        string meterName = "test.listened.views." + Guid.NewGuid().ToString("N");
        var options = new MetricRegistryOptions();
        options.Views.Add(new MetricView { Meter = meterName, Instrument = "first", Name = "merged" });
        options.Views.Add(new MetricView { Meter = meterName, Instrument = "second", Name = "merged" });
        var logger = new ListLogger();
        using var meter = new System.Diagnostics.Metrics.Meter(meterName);
        using var host = new MeterListenerHost([meterName], "ScalableMetrics", name => new MetricRegistry(options, name), logger);
        host.Start();
        meter.CreateCounter<long>("first").Add(1);
        meter.CreateHistogram<double>("second").Record(1);

        MetricRegistry registry = host.Scopes.Single().Registry;
        Assert.Equal(["merged"], registry.Instruments.Select(i => i.Name));
        Assert.IsType<PartitionedCounter>(registry.Instruments[0]);
        (string message, Exception? exception) = Assert.Single(logger.Entries, e => e.Exception is ArgumentException);
        Assert.Contains("'second'", exception!.Message, StringComparison.Ordinal);
        Assert.Contains("'first'", exception.Message, StringComparison.Ordinal);
        Assert.Contains("'merged'", exception.Message, StringComparison.Ordinal);
        Assert.Contains("second", message, StringComparison.Ordinal);
    }

    // A view sets no range: a listened histogram it makes exponential takes the default one, 2^-10 to
    // 2^20, which takes 481 buckets at scale 4, the highest scale that fits the 512 a histogram takes.
    [Fact]
    public void AnExponentialViewOfTheHighestScaleTheDefaultRangeFitsMakesTheListenedHistogramExponentialAtThatScale()
    {
        string meterName = "test.listened.views." + Guid.NewGuid().ToString("N");
        var options = new MetricRegistryOptions();
        options.Views.Add(new MetricView { Meter = meterName, Instrument = "latency", ExponentialHistogram = true, ExponentialHistogramScale = 4 });
        var logger = new ListLogger();
        using var meter = new System.Diagnostics.Metrics.Meter(meterName);
        using var host = new MeterListenerHost([meterName], "ScalableMetrics", name => new MetricRegistry(options, name), logger);
        host.Start();
        meter.CreateHistogram<double>("latency", "s").Record(1.5);

        Assert.DoesNotContain(logger.Entries, e => e.Exception is not null);
        MetricRegistry registry = host.Scopes.Single().Registry;
        PartitionedExponentialHistogram histogram = Assert.IsType<PartitionedExponentialHistogram>(Assert.Single(registry.Instruments));
        Assert.Equal(4, histogram.Scale);
        Assert.Equal(1, Assert.Single(histogram.Collect()).Count);
    }

    // Above scale 4 the default range takes more than 512 buckets (961 at 5, 7,681 at 8): a view of
    // such a scale would have every listened histogram it matched refused at run time, so the
    // registry refuses the view when it is created, and the host does not start.
    [Theory]
    [InlineData(5)]
    [InlineData(8)]
    public void AnExponentialViewOfAScaleTheDefaultRangeDoesNotFitIsRefusedWhenTheRegistryIsCreated(int scale)
    {
        var options = new ScalableMetricsOptions();
        options.Registry.Views.Add(new MetricView { Instrument = "latency", ExponentialHistogram = true, ExponentialHistogramScale = scale });

        ArgumentException e = Assert.Throws<ArgumentException>(() => new MetricRegistry(options.Registry));
        Assert.Equal("options", e.ParamName);
        Assert.Contains("Views[0]", e.Message, StringComparison.Ordinal);
        Assert.Contains($"ExponentialHistogramScale {scale}", e.Message, StringComparison.Ordinal);
        Assert.Contains("2^-10 to 2^20", e.Message, StringComparison.Ordinal);
        Assert.Contains("scale 4 is the highest", e.Message, StringComparison.Ordinal);
        ValidateOptionsResult result = new ScalableMetrics.Exporter.Hosting.ScalableMetricsOptionsValidator().Validate(null, options);
        Assert.True(result.Failed);
        Assert.Contains("ExponentialHistogramScale", result.FailureMessage, StringComparison.Ordinal);
    }

    // MetricView.ExponentialHistogram (default false): "Whether a matched listened histogram is stored
    // as an exponential (native) histogram"; ExponentialHistogramScale: "The scale a matched
    // exponential histogram records at". A view that sets the scale of the exponential histograms
    // it matches, and leaves ExponentialHistogram false, does not make an explicit one exponential.
    [Fact]
    public void AViewThatSetsOnlyAnExponentialScaleLeavesAListenedHistogramExplicit()
    {
        string meterName = "test.listened.views." + Guid.NewGuid().ToString("N");
        var options = new MetricRegistryOptions();
        options.Views.Add(new MetricView { Meter = meterName, Instrument = "*", ExponentialHistogramScale = 2 });
        using var meter = new System.Diagnostics.Metrics.Meter(meterName);
        using var host = new MeterListenerHost([meterName], "ScalableMetrics", name => new MetricRegistry(options, name), new ListLogger());
        host.Start();
        meter.CreateHistogram<double>("latency", "s", null, advice: new System.Diagnostics.Metrics.InstrumentAdvice<double> { HistogramBucketBoundaries = [0.1, 1] }).Record(0.5);

        MetricRegistry registry = host.Scopes.Single().Registry;
        PartitionedHistogram histogram = Assert.IsType<PartitionedHistogram>(Assert.Single(registry.Instruments));
        Assert.Equal([0.1, 1], histogram.Boundaries);
    }

    // Starts a host that takes ASP.NET Core's meter under view, sends Requests requests to each of
    // paths, waits (bounded) until the duration histogram counts them, and returns the scrape.
    private static async Task<string> ScrapeAfterRequests(
        MetricView view,
        string[]? paths = null,
        bool waitForCount = true,
        string? traceparent = null,
        bool openMetrics = false,
        Action<WebApplication>? onStarted = null)
    {
        paths ??= ["/hello"];
        WebApplicationBuilder builder = WebApplication.CreateBuilder();
        builder.WebHost.UseUrls("http://127.0.0.1:0");
        builder.Services.AddScalableMetrics(o =>
        {
            o.MeterName = "test.views." + Guid.NewGuid().ToString("N");
            o.ExportSelfMetrics = false;
            o.AddMeter(Hosting);
            o.Registry.Views.Add(view);
        });
        await using WebApplication app = builder.Build();
        foreach (string path in paths)
        {
            app.MapGet(path, () => "ok");
        }

        app.MapScalableMetrics();
        await app.StartAsync();
        onStarted?.Invoke(app);
        using var client = new HttpClient { BaseAddress = new Uri(Assert.Single(app.Urls)) };
        foreach (string path in paths)
        {
            for (int i = 0; i < Requests; i++)
            {
                using var request = new HttpRequestMessage(HttpMethod.Get, path);
                if (traceparent is not null)
                {
                    request.Headers.Add("traceparent", traceparent);
                }

                using HttpResponseMessage response = await client.SendAsync(request);
                response.EnsureSuccessStatusCode();
            }
        }

        // The duration is recorded after the response: poll, a bounded number of times.
        string text = string.Empty;
        for (int attempt = 0; attempt < 50; attempt++)
        {
            using var scrape = new HttpRequestMessage(HttpMethod.Get, "/metrics");
            if (openMetrics)
            {
                scrape.Headers.TryAddWithoutValidation("Accept", "application/openmetrics-text;version=1.0.0");
            }

            using HttpResponseMessage response = await client.SendAsync(scrape);
            text = await response.Content.ReadAsStringAsync();
            if (!waitForCount || CountedAll(text, paths.Length * Requests))
            {
                break;
            }

            await Task.Delay(100);
        }

        return text;
    }

    // Whether the duration family (under any name) counts every request, /metrics' own left out.
    private static bool CountedAll(string text, int expected) =>
        text.Split('\n')
            .Where(l => l.Contains("_count{", StringComparison.Ordinal) && l.Contains("duration", StringComparison.Ordinal) && !l.Contains("/metrics", StringComparison.Ordinal))
            .Sum(l => double.Parse(l[(l.LastIndexOf(' ') + 1)..], CultureInfo.InvariantCulture)) >= expected;
}
