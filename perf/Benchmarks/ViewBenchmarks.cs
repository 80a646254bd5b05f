// Results: perf/results/README.md, section "Views (issue 30)". Run, on a quiet machine:
//   dotnet run -c Release --project perf/Benchmarks -- --filter '*ViewBenchmarks*' --launchCount 12 --warmupCount 6 --iterationCount 15
// Twelve processes a benchmark, not one: the JIT lays out the inlined add differently from one
// process to the next (its profile at Tier 1), with or without the view, so that a single
// launch a side compares two draws. Ratio = time with the view / without: at most 1.05 (1 / 0.95).

using System.Diagnostics;
using System.Diagnostics.Metrics;
using BenchmarkDotNet.Attributes;
using BenchmarkDotNet.Configs;
using Microsoft.Extensions.Logging.Abstractions;
using ScalableMetrics.Exporter.Listening;

namespace ScalableMetrics.Benchmarks;

/// <summary>
/// The tagged workloads with and without a view that drops a tag key (<c>url.scheme</c>), in one
/// run: ASP.NET Core's <c>http.server.request.duration</c> as its hosting records it (5 tags in a
/// <see cref="TagList"/>) through the listener (<c>AddMeter</c>), on one hot route and on 8 routes
/// in turn, and the registry's own unbound record and counter add with the same 5 tags. Each
/// category's baseline is the workload without the view: a view applies when a tag set is first
/// met, so the ratio should stay at 1.
/// </summary>
/// <remarks>Every series exists before measuring (the view's aliases included).</remarks>
[MemoryDiagnoser]
[MinColumn]
[MedianColumn]
[BenchmarkCategory("views")]
[CategoriesColumn]
[GroupBenchmarksBy(BenchmarkLogicalGroupRule.ByCategory)]
public class ViewBenchmarks
{
    private const string Hot = "listened, hot route";
    private const string Spread = "listened, 8 routes";
    private const string Unbound = "registry histogram, unbound";
    private const string Counter = "registry counter, unbound";
    private const double Value = 0.042;

    private static readonly double[] s_boundaries = [0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10];
    private static readonly string[] s_routes = ["/api/orders/{id}", "/api/orders", "/api/customers/{id}", "/api/items/{sku}", "/health", "/api/carts/{id}/items", "/login", "/api/search"];
    private static readonly object[] s_statusCodes = [200, 201, 204, 400, 404, 500, 302, 304];

    private readonly List<IDisposable> _disposables = [];
    private Histogram<double> _listened = null!;
    private Histogram<double> _listenedViewed = null!;
    private PartitionedHistogram _histogram = null!;
    private PartitionedHistogram _histogramViewed = null!;
    private PartitionedCounter _counter = null!;
    private PartitionedCounter _counterViewed = null!;
    private int _next;

    [GlobalSetup]
    public void Setup()
    {
        (_listened, _histogram, _counter) = Make("Plain", view: false);
        (_listenedViewed, _histogramViewed, _counterViewed) = Make("Viewed", view: true);
        for (int i = 0; i < s_routes.Length; i++)
        {
            foreach (Histogram<double> listened in (Histogram<double>[])[_listened, _listenedViewed])
            {
                Record(listened, s_routes[i], s_statusCodes[i]);
            }
        }

        foreach (PartitionedHistogram histogram in (PartitionedHistogram[])[_histogram, _histogramViewed])
        {
            RecordUnbound(histogram);
        }

        foreach (PartitionedCounter counter in (PartitionedCounter[])[_counter, _counterViewed])
        {
            AddUnbound(counter);
        }
    }

    [GlobalCleanup]
    public void Cleanup()
    {
        foreach (IDisposable disposable in _disposables)
        {
            disposable.Dispose();
        }
    }

    [Benchmark(Baseline = true)]
    [BenchmarkCategory(Hot)]
    public void ListenedHot() => Record(_listened, s_routes[0], s_statusCodes[0]);

    [Benchmark]
    [BenchmarkCategory(Hot)]
    public void ListenedHotWithView() => Record(_listenedViewed, s_routes[0], s_statusCodes[0]);

    [Benchmark(Baseline = true)]
    [BenchmarkCategory(Spread)]
    public void ListenedSpread()
    {
        int i = _next++ & 7;
        Record(_listened, s_routes[i], s_statusCodes[i]);
    }

    [Benchmark]
    [BenchmarkCategory(Spread)]
    public void ListenedSpreadWithView()
    {
        int i = _next++ & 7;
        Record(_listenedViewed, s_routes[i], s_statusCodes[i]);
    }

    [Benchmark(Baseline = true)]
    [BenchmarkCategory(Unbound)]
    public void HistogramUnbound() => RecordUnbound(_histogram);

    [Benchmark]
    [BenchmarkCategory(Unbound)]
    public void HistogramUnboundWithView() => RecordUnbound(_histogramViewed);

    [Benchmark(Baseline = true)]
    [BenchmarkCategory(Counter)]
    public void CounterUnbound() => AddUnbound(_counter);

    [Benchmark]
    [BenchmarkCategory(Counter)]
    public void CounterUnboundWithView() => AddUnbound(_counterViewed);

    private static void Record(Histogram<double> histogram, string route, object statusCode)
    {
        var tags = new TagList
        {
            { "http.request.method", "GET" },
            { "url.scheme", "https" },
            { "network.protocol.version", "1.1" },
            { "http.route", route },
            { "http.response.status_code", statusCode },
        };
        histogram.Record(Value, tags);
    }

    private static void RecordUnbound(PartitionedHistogram histogram) => histogram.Record(
        Value,
        new("http.request.method", "GET"),
        new("url.scheme", "https"),
        new("network.protocol.version", "1.1"),
        new("http.route", s_routes[0]),
        new("http.response.status_code", s_statusCodes[0]));

    private static void AddUnbound(PartitionedCounter counter) => counter.Add(
        1,
        new("http.request.method", "GET"),
        new("url.scheme", "https"),
        new("network.protocol.version", "1.1"),
        new("http.route", s_routes[0]),
        new("http.response.status_code", s_statusCodes[0]));

    // A meter listened to by a host whose registries have (or not) the view that drops url.scheme,
    // and a registry of the same options.
    private (Histogram<double> Listened, PartitionedHistogram Histogram, PartitionedCounter Counter) Make(string suffix, bool view)
    {
        var options = new MetricRegistryOptions();
        if (view)
        {
            options.Views.Add(new MetricView { Instrument = "http.server.request.duration", ExcludedTagKeys = ["url.scheme"] });
            options.Views.Add(new MetricView { Instrument = "http.server.requests", ExcludedTagKeys = ["url.scheme"] });
        }

        var meter = new Meter("ScalableMetrics.Benchmarks.Views." + suffix);
        var host = new MeterListenerHost([meter.Name], "ScalableMetrics", name => new MetricRegistry(options, name), NullLogger.Instance);
        host.Start();
        _disposables.Add(host);
        _disposables.Add(meter);
        var advice = new InstrumentAdvice<double> { HistogramBucketBoundaries = s_boundaries };
        Histogram<double> listened = meter.CreateHistogram("http.server.request.duration", "s", null, null, advice);
        var registry = new MetricRegistry(options);
        return (listened, registry.CreateHistogram("http.server.request.duration", "s", null, s_boundaries), registry.CreateCounter("http.server.requests"));
    }
}
