// Results (2 logical cores): perf/results/README.md, section "Where the tagged record's time goes
// (issue 19)". Run:
//   dotnet run -c Release --project perf/Benchmarks -- --filter '*TaggedRecordBenchmarks*' --job short --iterationCount 15

using System.Diagnostics;
using System.Diagnostics.Metrics;
using BenchmarkDotNet.Attributes;
using BenchmarkDotNet.Configs;
using Microsoft.Extensions.Logging.Abstractions;
using OpenTelemetry;
using OpenTelemetry.Metrics;
using ScalableMetrics.Exporter.Listening;
using ScalableMetrics.Scaling.Implementations;

namespace ScalableMetrics.Benchmarks;

/// <summary>
/// ASP.NET Core's <c>http.server.request.duration</c> as its hosting metrics record it: a
/// <see cref="Histogram{T}"/> of <see cref="double"/> recorded with a <see cref="TagList"/> of 5
/// tags built per request (method, scheme and protocol version as string constants, the route
/// template from endpoint metadata, the status code boxed from a cache), through ScalableMetrics'
/// listener (<c>AddMeter</c>), through the registry's unbound <see cref="PartitionedHistogram.Record(double, ReadOnlySpan{KeyValuePair{string, object}})"/>,
/// through OpenTelemetry's SDK (the baseline of each category) and through a
/// <see cref="MeterListener"/> whose callback keeps nothing (the floor of the listener path).
/// </summary>
/// <remarks>
/// <para>Categories: one hot route, through a meter and an instrument without tags of their own
/// and with some; 8 routes and status codes in turn; the same tags rebuilt from
/// new string instances and new boxes on every record (a caller that formats or boxes per
/// record; the copies are made before measuring, so the benchmark allocates none); the same tags
/// in one of 5 orders in turn; 4,096 routes in turn (more distinct tag sets than a thread
/// remembers, so that every lookup misses its recent ones); and the unbound record at 0, 1, 3, 5
/// and 8 tags.</para>
/// <para>Every series (and OpenTelemetry's metric points) exists before measuring. Min and
/// median beside the mean: on a shared machine the quietest iterations say more about the code
/// than their mean.</para>
/// </remarks>
[MemoryDiagnoser]
[MinColumn]
[MedianColumn]
[BenchmarkCategory("tagged-record")]
[CategoriesColumn]
[GroupBenchmarksBy(BenchmarkLogicalGroupRule.ByCategory)]
public class TaggedRecordBenchmarks
{
    private const string Hot = "hot route";
    private const string Spread = "8 routes";
    private const string Copies = "new instances";
    private const string Shuffled = "5 orders";
    private const string SourceTags = "hot route, meter and instrument tags";
    private const string Many = "4,096 routes in turn";
    private const string Counts = "unbound, tag count";
    private const double Value = 0.042;

    // The advised boundaries of ASP.NET Core's request duration.
    private static readonly double[] s_boundaries = [0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10];
    private static readonly string[] s_routes = ["/api/orders/{id}", "/api/orders", "/api/customers/{id}", "/api/items/{sku}", "/health", "/api/carts/{id}/items", "/login", "/api/search"];
    private static readonly object[] s_statusCodes = [200, 201, 204, 400, 404, 500, 302, 304];

    // Boxed once, as a caller that keeps its tags would.
    private static readonly object s_false = false;

    // A new instance of each string and box per record, cycled: more copies than any cache of recent tag sets holds.
    private readonly string[] _methodCopies = Copy("GET");
    private readonly string[] _schemeCopies = Copy("https");
    private readonly string[] _protocolCopies = Copy("1.1");
    private readonly string[] _routeCopies = Copy(s_routes[0]);
    private readonly object[] _statusCopies = [.. Enumerable.Range(0, 4096).Select(_ => (object)200)];

    // More distinct tag sets in turn than a thread remembers: every lookup misses its recent ones.
    private readonly string[] _manyRoutes = [.. Enumerable.Range(0, 4096).Select(i => $"/api/items/{i}")];

    private Meter _noopMeter = null!;
    private Meter _listenedMeter = null!;
    private Meter _taggedMeter = null!;
    private Meter _openTelemetryMeter = null!;
    private MeterListener _noopListener = null!;
    private MeterListenerHost _host = null!;
    private MeterProvider _meterProvider = null!;
    private Histogram<double> _noop = null!;
    private Histogram<double> _listened = null!;
    private Histogram<double> _listenedWithSourceTags = null!;
    private Histogram<double> _openTelemetry = null!;
    private PartitionedHistogram _unbound = null!;
    private HistogramSeries _bound = null!;
    private int _next;

    [GlobalSetup]
    public void Setup()
    {
        _noopMeter = new Meter("ScalableMetrics.Benchmarks.TaggedRecord.Noop");
        _listenedMeter = new Meter("ScalableMetrics.Benchmarks.TaggedRecord.Listened");
        _openTelemetryMeter = new Meter("ScalableMetrics.Benchmarks.TaggedRecord.OpenTelemetry");
        _taggedMeter = new Meter("ScalableMetrics.Benchmarks.TaggedRecord.Tagged", null, [new("service.tier", "edge")]);
        _noopListener = new MeterListener
        {
            InstrumentPublished = (instrument, listener) =>
            {
                if (instrument.Meter == _noopMeter)
                {
                    listener.EnableMeasurementEvents(instrument);
                }
            },
        };
        _noopListener.SetMeasurementEventCallback<double>(static (_, _, _, _) => { });
        _noopListener.Start();
        var options = new MetricRegistryOptions { MaxSeriesPerInstrument = 5_000 };
        _host = new MeterListenerHost([_listenedMeter.Name, _taggedMeter.Name], "ScalableMetrics", () => new MetricRegistry(options), NullLogger.Instance);
        _host.Start();
        _meterProvider = Sdk.CreateMeterProviderBuilder()
            .AddMeter(_openTelemetryMeter.Name)
            .AddReader(new BaseExportingMetricReader(new HistogramExporter("http.server.request.duration")))
            .Build();

        var advice = new InstrumentAdvice<double> { HistogramBucketBoundaries = s_boundaries };
        _noop = _noopMeter.CreateHistogram("http.server.request.duration", "s", null, null, advice);
        _listened = _listenedMeter.CreateHistogram("http.server.request.duration", "s", null, null, advice);
        _openTelemetry = _openTelemetryMeter.CreateHistogram("http.server.request.duration", "s", null, null, advice);
        _listenedWithSourceTags = _taggedMeter.CreateHistogram("http.server.request.duration", "s", null, [new("zone", "a")], advice);
        _unbound = new MetricRegistry(options).CreateHistogram("http.server.request.duration", "s", null, s_boundaries);
        _bound = _unbound.Bind(Tags(s_routes[0], s_statusCodes[0]));

        for (int i = 0; i < s_routes.Length; i++)
        {
            Record(_noop, s_routes[i], s_statusCodes[i]);
            Record(_listened, s_routes[i], s_statusCodes[i]);
            Record(_listenedWithSourceTags, s_routes[i], s_statusCodes[i]);
            Record(_openTelemetry, s_routes[i], s_statusCodes[i]);
            _unbound.Record(Value, Tags(s_routes[i], s_statusCodes[i]));
        }

        foreach (string route in _manyRoutes)
        {
            Record(_listened, route, s_statusCodes[0]);
            RecordUnbound(_unbound, route, s_statusCodes[0]);
        }

        foreach (int count in (int[])[0, 1, 3, 5, 8])
        {
            _unbound.Record(Value, EightTags().AsSpan(0, count));
        }
    }

    [GlobalCleanup]
    public void Cleanup()
    {
        _meterProvider.Dispose();
        _host.Dispose();
        _noopListener.Dispose();
        _noopMeter.Dispose();
        _listenedMeter.Dispose();
        _taggedMeter.Dispose();
        _openTelemetryMeter.Dispose();
    }

    [Benchmark(Description = "no-op MeterListener")]
    [BenchmarkCategory(Hot)]
    public void NoopHot() => Record(_noop, s_routes[0], s_statusCodes[0]);

    [Benchmark(Baseline = true, Description = "opentelemetry")]
    [BenchmarkCategory(Hot)]
    public void OpenTelemetryHot() => Record(_openTelemetry, s_routes[0], s_statusCodes[0]);

    [Benchmark(Description = "ours, AddMeter")]
    [BenchmarkCategory(Hot)]
    public void AddMeterHot() => Record(_listened, s_routes[0], s_statusCodes[0]);

    [Benchmark(Description = "ours, unbound Record")]
    [BenchmarkCategory(Hot)]
    public void UnboundHot() => RecordUnbound(_unbound, s_routes[0], s_statusCodes[0]);

    [Benchmark(Description = "ours, bound series")]
    [BenchmarkCategory(Hot)]
    public void BoundHot() => _bound.Record(Value);

    [Benchmark(Description = "ours, AddMeter")]
    [BenchmarkCategory(SourceTags)]
    public void AddMeterSourceTags() => Record(_listenedWithSourceTags, s_routes[0], s_statusCodes[0]);

    [Benchmark(Baseline = true, Description = "opentelemetry")]
    [BenchmarkCategory(Spread)]
    public void OpenTelemetrySpread()
    {
        int i = _next++ & 7;
        Record(_openTelemetry, s_routes[i], s_statusCodes[i]);
    }

    [Benchmark(Description = "ours, AddMeter")]
    [BenchmarkCategory(Spread)]
    public void AddMeterSpread()
    {
        int i = _next++ & 7;
        Record(_listened, s_routes[i], s_statusCodes[i]);
    }

    [Benchmark(Description = "ours, unbound Record")]
    [BenchmarkCategory(Spread)]
    public void UnboundSpread()
    {
        int i = _next++ & 7;
        RecordUnbound(_unbound, s_routes[i], s_statusCodes[i]);
    }

    [Benchmark(Baseline = true, Description = "opentelemetry")]
    [BenchmarkCategory(Copies)]
    public void OpenTelemetryCopies()
    {
        int i = _next++ & 4095;
        var tags = new TagList
        {
            { "http.request.method", _methodCopies[i] },
            { "url.scheme", _schemeCopies[i] },
            { "network.protocol.version", _protocolCopies[i] },
            { "http.route", _routeCopies[i] },
            { "http.response.status_code", _statusCopies[i] },
        };
        _openTelemetry.Record(Value, tags);
    }

    [Benchmark(Description = "ours, AddMeter")]
    [BenchmarkCategory(Copies)]
    public void AddMeterCopies()
    {
        int i = _next++ & 4095;
        var tags = new TagList
        {
            { "http.request.method", _methodCopies[i] },
            { "url.scheme", _schemeCopies[i] },
            { "network.protocol.version", _protocolCopies[i] },
            { "http.route", _routeCopies[i] },
            { "http.response.status_code", _statusCopies[i] },
        };
        _listened.Record(Value, tags);
    }

    [Benchmark(Description = "ours, unbound Record")]
    [BenchmarkCategory(Copies)]
    public void UnboundCopies()
    {
        int i = _next++ & 4095;
        _unbound.Record(
            Value,
            new("http.request.method", _methodCopies[i]),
            new("url.scheme", _schemeCopies[i]),
            new("network.protocol.version", _protocolCopies[i]),
            new("http.route", _routeCopies[i]),
            new("http.response.status_code", _statusCopies[i]));
    }

    [Benchmark(Description = "ours, AddMeter")]
    [BenchmarkCategory(Many)]
    public void AddMeterMany() => Record(_listened, _manyRoutes[_next++ & 4095], s_statusCodes[0]);

    [Benchmark(Description = "ours, unbound Record")]
    [BenchmarkCategory(Many)]
    public void UnboundMany() => RecordUnbound(_unbound, _manyRoutes[_next++ & 4095], s_statusCodes[0]);

    [Benchmark(Description = "ours, unbound Record")]
    [BenchmarkCategory(Shuffled)]
    public void UnboundShuffled()
    {
        KeyValuePair<string, object?> method = new("http.request.method", "GET");
        KeyValuePair<string, object?> scheme = new("url.scheme", "https");
        KeyValuePair<string, object?> protocol = new("network.protocol.version", "1.1");
        KeyValuePair<string, object?> route = new("http.route", s_routes[0]);
        KeyValuePair<string, object?> status = new("http.response.status_code", s_statusCodes[0]);
        switch (_next++ % 5)
        {
            case 0: _unbound.Record(Value, method, scheme, protocol, route, status); break;
            case 1: _unbound.Record(Value, status, method, scheme, protocol, route); break;
            case 2: _unbound.Record(Value, route, status, method, scheme, protocol); break;
            case 3: _unbound.Record(Value, protocol, route, status, method, scheme); break;
            default: _unbound.Record(Value, scheme, protocol, route, status, method); break;
        }
    }

    [Benchmark(Description = "0 tags")]
    [BenchmarkCategory(Counts)]
    public void Unbound0() => _unbound.Record(Value);

    [Benchmark(Description = "1 tag")]
    [BenchmarkCategory(Counts)]
    public void Unbound1() => _unbound.Record(Value, new KeyValuePair<string, object?>("http.request.method", "GET"));

    [Benchmark(Description = "3 tags")]
    [BenchmarkCategory(Counts)]
    public void Unbound3() => _unbound.Record(Value, new("http.request.method", "GET"), new("url.scheme", "https"), new("network.protocol.version", "1.1"));

    [Benchmark(Description = "5 tags")]
    [BenchmarkCategory(Counts)]
    public void Unbound5() => RecordUnbound(_unbound, s_routes[0], s_statusCodes[0]);

    [Benchmark(Description = "8 tags")]
    [BenchmarkCategory(Counts)]
    public void Unbound8() => _unbound.Record(
        Value,
        new("http.request.method", "GET"),
        new("url.scheme", "https"),
        new("network.protocol.version", "1.1"),
        new("http.route", s_routes[0]),
        new("http.response.status_code", s_statusCodes[0]),
        new("server.address", "orders.internal.example.com"),
        new("error.retried", s_false),
        new("server.port", s_statusCodes[7]));

    // As ASP.NET Core's HostingMetrics.RequestEnd builds them: a TagList per request.
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

    private static void RecordUnbound(PartitionedHistogram histogram, string route, object statusCode) => histogram.Record(
        Value,
        new("http.request.method", "GET"),
        new("url.scheme", "https"),
        new("network.protocol.version", "1.1"),
        new("http.route", route),
        new("http.response.status_code", statusCode));

    private static KeyValuePair<string, object?>[] Tags(string route, object statusCode) =>
        [new("http.request.method", "GET"), new("url.scheme", "https"), new("network.protocol.version", "1.1"), new("http.route", route), new("http.response.status_code", statusCode)];

    private static KeyValuePair<string, object?>[] EightTags() =>
    [
        new("http.request.method", "GET"),
        new("url.scheme", "https"),
        new("network.protocol.version", "1.1"),
        new("http.route", s_routes[0]),
        new("http.response.status_code", s_statusCodes[0]),
        new("server.address", "orders.internal.example.com"),
        new("error.retried", s_false),
        new("server.port", s_statusCodes[7]),
    ];

    private static string[] Copy(string text) => [.. Enumerable.Range(0, 4096).Select(_ => new string(text.AsSpan()))];
}
