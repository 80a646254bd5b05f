// Last results, text 0.0.4 only (--filter '*HttpScrapeBenchmarks.*Text'), the 2-core VM (2 logical
// cores) shared with other builds, one run, errors as wide as the means; more in perf/results/README.md:
//   | opentelemetry cache off, text | 11.552 ms | 1.00 |   67.66 KB |
//   | opentelemetry cache on, text  |  3.727 ms | 0.33 |   62.58 KB |
//   | ours, text                    |  7.849 ms | 0.68 | 1890.99 KB |
// Run:
//   dotnet run -c Release --project perf/Benchmarks -- --filter '*' --anyCategories scrape-http --job short
// Under 16 concurrent scrapers, scrapes per second: `-- scrape-concurrent` (ConcurrentScrapeCommand).
// The bar (issue 19): ours at most 0.5 x OpenTelemetry's exporter's time with its cache off (the
// baseline of each category) at 10,000 series.

using BenchmarkDotNet.Attributes;
using BenchmarkDotNet.Configs;

namespace ScalableMetrics.Benchmarks;

/// <summary>
/// One scrape over HTTP (loopback, a kept connection, the body read to its end) of the same
/// service's 10,000 counter series and 1,000 histogram series, taken through <c>AddMeter</c> and
/// served by ScalableMetrics' endpoint, against OpenTelemetry's Prometheus exporter with its
/// response cache off (the baseline of each category) and on at its default
/// (<see cref="HttpScrapeServices"/>). One category per format and encoding: text 0.0.4,
/// OpenMetrics 1.0 and, ours only, the protobuf exposition; each plain and with
/// <c>Accept-Encoding: gzip</c>.
/// </summary>
/// <remarks>The three services run in the benchmark's process, so a scrape's time is the client's
/// and the server's together, as a scraper on the same machine would see it. The setup scrapes every
/// target once and checks its answer (<see cref="HttpScrapeServices.CheckAsync"/>).</remarks>
[MemoryDiagnoser]
[BenchmarkCategory("scrape-http")]
[CategoriesColumn]
[GroupBenchmarksBy(BenchmarkLogicalGroupRule.ByCategory)]
public class HttpScrapeBenchmarks
{
    private const string Text = "text";
    private const string TextGzip = "text gzip";
    private const string OpenMetrics = "openmetrics";
    private const string OpenMetricsGzip = "openmetrics gzip";
    private const string Protobuf = "protobuf";
    private const string ProtobufGzip = "protobuf gzip";

    private HttpScrapeServices _services = null!;
    private HttpClient _client = null!;

    [GlobalSetup]
    public void Setup()
    {
        _services = HttpScrapeServices.StartAsync().GetAwaiter().GetResult();
        _client = HttpScrapeServices.NewClient();
        _services.CheckAsync(_client).GetAwaiter().GetResult();
    }

    [GlobalCleanup]
    public void Cleanup()
    {
        _client.Dispose();
        _services.DisposeAsync().AsTask().GetAwaiter().GetResult();
    }

    [Benchmark(Baseline = true, Description = "opentelemetry cache off, text")]
    [BenchmarkCategory(Text)]
    public Task<int> OpenTelemetryCacheOffText() => Scrape("opentelemetry cache off text");

    [Benchmark(Description = "opentelemetry cache on, text")]
    [BenchmarkCategory(Text)]
    public Task<int> OpenTelemetryCacheOnText() => Scrape("opentelemetry cache on text");

    [Benchmark(Description = "ours, text")]
    [BenchmarkCategory(Text)]
    public Task<int> OursText() => Scrape("ours text");

    [Benchmark(Baseline = true, Description = "opentelemetry cache off, text, gzip")]
    [BenchmarkCategory(TextGzip)]
    public Task<int> OpenTelemetryCacheOffTextGzip() => Scrape("opentelemetry cache off text gzip");

    [Benchmark(Description = "opentelemetry cache on, text, gzip")]
    [BenchmarkCategory(TextGzip)]
    public Task<int> OpenTelemetryCacheOnTextGzip() => Scrape("opentelemetry cache on text gzip");

    [Benchmark(Description = "ours, text, gzip")]
    [BenchmarkCategory(TextGzip)]
    public Task<int> OursTextGzip() => Scrape("ours text gzip");

    [Benchmark(Baseline = true, Description = "opentelemetry cache off, openmetrics")]
    [BenchmarkCategory(OpenMetrics)]
    public Task<int> OpenTelemetryCacheOffOpenMetrics() => Scrape("opentelemetry cache off openmetrics");

    [Benchmark(Description = "opentelemetry cache on, openmetrics")]
    [BenchmarkCategory(OpenMetrics)]
    public Task<int> OpenTelemetryCacheOnOpenMetrics() => Scrape("opentelemetry cache on openmetrics");

    [Benchmark(Description = "ours, openmetrics")]
    [BenchmarkCategory(OpenMetrics)]
    public Task<int> OursOpenMetrics() => Scrape("ours openmetrics");

    [Benchmark(Baseline = true, Description = "opentelemetry cache off, openmetrics, gzip")]
    [BenchmarkCategory(OpenMetricsGzip)]
    public Task<int> OpenTelemetryCacheOffOpenMetricsGzip() => Scrape("opentelemetry cache off openmetrics gzip");

    [Benchmark(Description = "opentelemetry cache on, openmetrics, gzip")]
    [BenchmarkCategory(OpenMetricsGzip)]
    public Task<int> OpenTelemetryCacheOnOpenMetricsGzip() => Scrape("opentelemetry cache on openmetrics gzip");

    [Benchmark(Description = "ours, openmetrics, gzip")]
    [BenchmarkCategory(OpenMetricsGzip)]
    public Task<int> OursOpenMetricsGzip() => Scrape("ours openmetrics gzip");

    [Benchmark(Description = "ours, protobuf")]
    [BenchmarkCategory(Protobuf)]
    public Task<int> OursProtobuf() => Scrape("ours protobuf");

    [Benchmark(Description = "ours, protobuf, gzip")]
    [BenchmarkCategory(ProtobufGzip)]
    public Task<int> OursProtobufGzip() => Scrape("ours protobuf gzip");

    private Task<int> Scrape(string target) => HttpScrapeServices.ScrapeAsync(_client, _services.Target(target));
}
