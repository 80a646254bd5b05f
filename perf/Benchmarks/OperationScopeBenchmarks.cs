// Last results, on the 2-core VM (2 logical cores; read ratios within one run, not absolutes):
//   dotnet run -c Release --project perf/Benchmarks -- --filter '*' --anyCategories operation --job short --iterationCount 7
//   one process per benchmark (BenchmarkDotNet default toolchain); core as of commit cfcb475
//
// BenchmarkDotNet v0.14.0, Debian GNU/Linux 12 (bookworm)
// Intel Xeon Processor, 1 CPU, 2 logical and 2 physical cores
// .NET SDK 10.0.401
//   [Host]     : .NET 10.0.12 (10.0.1226.42308), X64 RyuJIT AVX-512F+CD+BW+DQ+VL+VBMI
//
// IterationCount=7  LaunchCount=1  WarmupCount=3
//
// | Method                        | Mean     | Error     | StdDev   | Ratio | RatioSD | Allocated | Alloc Ratio |
// |------------------------------ |---------:|----------:|---------:|------:|--------:|----------:|------------:|
// | 'Stopwatch.GetTimestamp pair' | 70.28 ns |  8.600 ns | 3.818 ns |  1.00 |    0.07 |         - |          NA |
// | 'using (series.Start()) { }'  | 93.02 ns | 11.039 ns | 4.901 ns |  1.33 |    0.09 |         - |          NA |

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
