// Last results, on the 2-core VM (2 logical cores; other sessions shared the machine, so read ratios, not absolutes):
//   dotnet run -c Release --project perf/Benchmarks -- --filter '*' --anyCategories operation --job short --iterationCount 7
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
// | Method                        | Mean      | Error    | StdDev   | Ratio | RatioSD | Allocated | Alloc Ratio |
// |------------------------------ |----------:|---------:|---------:|------:|--------:|----------:|------------:|
// | 'Stopwatch.GetTimestamp pair' |  80.67 ns | 12.32 ns | 5.469 ns |  1.00 |    0.10 |         - |          NA |
// | 'using (series.Start()) { }'  | 112.86 ns | 17.44 ns | 7.744 ns |  1.41 |    0.13 |         - |          NA |

using System.Diagnostics;
using BenchmarkDotNet.Attributes;

namespace ScalableMetrics.Benchmarks;

/// <summary>
/// Timing an empty operation with an <see cref="OperationData"/> scope, against the two
/// <see cref="Stopwatch.GetTimestamp"/> reads any timing needs.
/// </summary>
[MemoryDiagnoser]
[BenchmarkCategory("operation")]
public class OperationScopeBenchmarks
{
    private OperationSeries _series = null!;

    [GlobalSetup]
    public void Setup() => _series = new MetricRegistry().CreateOperationData("bench.operation").Bind();

    [Benchmark(Baseline = true, Description = "Stopwatch.GetTimestamp pair")]
    public long TimestampPair()
    {
        long start = Stopwatch.GetTimestamp();
        return Stopwatch.GetTimestamp() - start;
    }

    [Benchmark(Description = "using (series.Start()) { }")]
    public void Scope()
    {
        using (_series.Start())
        {
        }
    }
}
