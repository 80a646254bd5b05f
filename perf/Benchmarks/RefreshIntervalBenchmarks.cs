// Last results, on the 2-core VM (2 logical cores; read ratios within one run, not absolutes):
//   dotnet run -c Release --project perf/Benchmarks -- --filter '*' --anyCategories refresh-interval --job short --iterationCount 7
//   one process per benchmark (BenchmarkDotNet default toolchain); core as of commit 2d7bb00
//
// BenchmarkDotNet v0.14.0, Debian GNU/Linux 12 (bookworm)
// Intel Xeon Processor, 1 CPU, 2 logical and 2 physical cores
// .NET SDK 10.0.401
//   [Host]     : .NET 10.0.12 (10.0.1226.42308), X64 RyuJIT AVX-512F+CD+BW+DQ+VL+VBMI
//
// IterationCount=7  LaunchCount=1  WarmupCount=3
//
// | Method                                   | Interval | Mean     | Error     | StdDev    | Ratio | RatioSD | Allocated | Alloc Ratio |
// |----------------------------------------- |--------- |---------:|----------:|----------:|------:|--------:|----------:|------------:|
// | ProcessorId.ReadFromOperatingSystem      | 1        | 3.401 ns | 0.4592 ns | 0.1638 ns |  1.00 |    0.06 |         - |          NA |
// | 'cached, refreshed every Interval reads' | 1        | 9.164 ns | 0.3752 ns | 0.1666 ns |  2.70 |    0.13 |         - |          NA |
// |                                          |          |          |           |           |       |         |           |             |
// | ProcessorId.ReadFromOperatingSystem      | 4        | 3.344 ns | 0.5432 ns | 0.2412 ns |  1.00 |    0.10 |         - |          NA |
// | 'cached, refreshed every Interval reads' | 4        | 3.086 ns | 0.1232 ns | 0.0547 ns |  0.93 |    0.07 |         - |          NA |
// |                                          |          |          |           |           |       |         |           |             |
// | ProcessorId.ReadFromOperatingSystem      | 16       | 1.850 ns | 0.2922 ns | 0.1042 ns |  1.00 |    0.08 |         - |          NA |
// | 'cached, refreshed every Interval reads' | 16       | 4.333 ns | 1.3036 ns | 0.5788 ns |  2.35 |    0.32 |         - |          NA |
// |                                          |          |          |           |           |       |         |           |             |
// | ProcessorId.ReadFromOperatingSystem      | 64       | 2.707 ns | 0.8796 ns | 0.3137 ns |  1.01 |    0.15 |         - |          NA |
// | 'cached, refreshed every Interval reads' | 64       | 2.625 ns | 1.4439 ns | 0.6411 ns |  0.98 |    0.25 |         - |          NA |
// |                                          |          |          |           |           |       |         |           |             |
// | ProcessorId.ReadFromOperatingSystem      | 256      | 3.107 ns | 0.0801 ns | 0.0356 ns |  1.00 |    0.02 |         - |          NA |
// | 'cached, refreshed every Interval reads' | 256      | 2.348 ns | 0.6468 ns | 0.2872 ns |  0.76 |    0.09 |         - |          NA |

using BenchmarkDotNet.Attributes;
using ScalableMetrics.Platform;

namespace ScalableMetrics.Benchmarks;

/// <summary>
/// The amortized cost of a cached processor id as the refresh interval grows, against the
/// uncached operating system call: what <see cref="ProcessorId.RefreshInterval"/> buys.
/// </summary>
[MemoryDiagnoser]
[BenchmarkCategory("refresh-interval")]
public class RefreshIntervalBenchmarks
{
    [Params(1, 4, 16, 64, 256)]
    public int Interval { get; set; }

    [Benchmark(Baseline = true, Description = "ProcessorId.ReadFromOperatingSystem")]
    public int OperatingSystem() => ProcessorId.ReadFromOperatingSystem();

    [Benchmark(Description = "cached, refreshed every Interval reads")]
    public int Cached() => RefreshIntervalCache.CurrentPartition(Interval);
}
