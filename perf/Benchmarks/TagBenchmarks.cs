// Last results, on the 2-core VM (2 logical cores; read ratios within one run, not absolutes):
//   dotnet run -c Release --project perf/Benchmarks -- --filter '*' --anyCategories tags --job short --iterationCount 7
//   one process per benchmark (BenchmarkDotNet default toolchain); core as of commit 2d7bb00
//
// BenchmarkDotNet v0.14.0, Debian GNU/Linux 12 (bookworm)
// Intel Xeon Processor, 1 CPU, 2 logical and 2 physical cores
// .NET SDK 10.0.401
//   [Host]     : .NET 10.0.12 (10.0.1226.42308), X64 RyuJIT AVX-512F+CD+BW+DQ+VL+VBMI
//
// IterationCount=7  LaunchCount=1  WarmupCount=3
//
// | Method                  | Mean      | Error     | StdDev    | Ratio | RatioSD | Allocated | Alloc Ratio |
// |------------------------ |----------:|----------:|----------:|------:|--------:|----------:|------------:|
// | 'bound series (3 tags)' |  9.767 ns | 0.5559 ns | 0.2468 ns |  1.00 |    0.03 |         - |          NA |
// | 'unbound, 0 tags'       |  7.103 ns | 0.8805 ns | 0.3910 ns |  0.73 |    0.04 |         - |          NA |
// | 'unbound, 1 tag'        | 35.078 ns | 3.3712 ns | 1.4968 ns |  3.59 |    0.17 |         - |          NA |
// | 'unbound, 3 tags'       | 91.286 ns | 5.0092 ns | 2.2241 ns |  9.35 |    0.31 |         - |          NA |

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
