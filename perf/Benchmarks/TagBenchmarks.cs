// Last results, on the 2-core VM (2 logical cores; other sessions shared the machine, so read ratios, not absolutes):
//   dotnet run -c Release --project perf/Benchmarks -- --filter '*' --anyCategories tags --job short --iterationCount 7
//   in process (BenchmarkDotNet 0.14 cannot locate Benchmarks.csproj by assembly name); core 9882fd0, harness c7d696d
//
// BenchmarkDotNet v0.14.0, Debian GNU/Linux 12 (bookworm)
// Intel Xeon Processor, 1 CPU, 2 logical and 2 physical cores
// .NET SDK 10.0.401
//   [Host] : .NET 10.0.12 (10.0.1226.42308), X64 RyuJIT AVX-512F+CD+BW+DQ+VL+VBMI
//
// Job=ShortRun  Toolchain=InProcessEmitToolchain  IterationCount=7
// LaunchCount=1  WarmupCount=3
//
// | Method                  | Mean       | Error      | StdDev     | Ratio | RatioSD | Allocated | Alloc Ratio |
// |------------------------ |-----------:|-----------:|-----------:|------:|--------:|----------:|------------:|
// | 'bound series (3 tags)' |   9.492 ns |  0.6189 ns |  0.2748 ns |  1.00 |    0.04 |         - |          NA |
// | 'unbound, 0 tags'       |  10.504 ns |  0.5979 ns |  0.2655 ns |  1.11 |    0.04 |         - |          NA |
// | 'unbound, 1 tag'        |  48.886 ns | 11.2193 ns |  4.9815 ns |  5.15 |    0.51 |         - |          NA |
// | 'unbound, 3 tags'       | 332.245 ns | 29.9476 ns | 13.2969 ns | 35.03 |    1.61 |         - |          NA |

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
