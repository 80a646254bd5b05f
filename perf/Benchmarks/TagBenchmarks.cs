using BenchmarkDotNet.Attributes;

namespace ScalableMetrics.Benchmarks;

/// <summary>
/// An add that looks its series up by 0, 1 or 3 tags on every call, against an add to a series
/// bound once. The tags are made once, so the caller boxes nothing.
/// </summary>
[MemoryDiagnoser]
[BenchmarkCategory("tags")]
public class TagBenchmarks
{
    private readonly KeyValuePair<string, object?> _method = new("http.request.method", "GET");
    private readonly KeyValuePair<string, object?> _status = new("http.response.status_code", 200);
    private readonly KeyValuePair<string, object?> _route = new("http.route", "/api/orders/{id}");
    private PartitionedCounter _counter = null!;
    private CounterSeries _bound = null!;

    [GlobalSetup]
    public void Setup()
    {
        _counter = new MetricRegistry().CreateCounter("bench.requests", "{request}");
        _bound = _counter.Bind(_method, _status, _route);

        // Create every series before measuring, so that each benchmark measures a lookup.
        _counter.Add(1);
        _counter.Add(1, _method);
        _counter.Add(1, _method, _status, _route);
    }

    [Benchmark(Baseline = true, Description = "bound series (3 tags)")]
    public void Bound() => _bound.Add(1);

    [Benchmark(Description = "unbound, 0 tags")]
    public void Unbound0() => _counter.Add(1);

    [Benchmark(Description = "unbound, 1 tag")]
    public void Unbound1() => _counter.Add(1, _method);

    [Benchmark(Description = "unbound, 3 tags")]
    public void Unbound3() => _counter.Add(1, _method, _status, _route);
}
