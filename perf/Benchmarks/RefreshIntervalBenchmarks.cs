// Last results, on the 2-core VM (2 logical cores; other sessions shared the machine, so read ratios, not absolutes):
//   dotnet run -c Release --project perf/Benchmarks -- --filter '*' --anyCategories refresh-interval --job short --iterationCount 7
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
// | Method                                   | Interval | Mean      | Error     | StdDev    | Ratio | RatioSD | Allocated | Alloc Ratio |
// |----------------------------------------- |--------- |----------:|----------:|----------:|------:|--------:|----------:|------------:|
// | ProcessorId.ReadFromOperatingSystem      | 1        |  3.179 ns | 0.6208 ns | 0.2757 ns |  1.01 |    0.12 |         - |          NA |
// | 'cached, refreshed every Interval reads' | 1        | 12.276 ns | 1.8504 ns | 0.8216 ns |  3.89 |    0.42 |         - |          NA |
// |                                          |          |           |           |           |       |         |           |             |
// | ProcessorId.ReadFromOperatingSystem      | 4        |  3.789 ns | 0.2711 ns | 0.1204 ns |  1.00 |    0.04 |         - |          NA |
// | 'cached, refreshed every Interval reads' | 4        |  6.376 ns | 0.2194 ns | 0.0974 ns |  1.68 |    0.05 |         - |          NA |
// |                                          |          |           |           |           |       |         |           |             |
// | ProcessorId.ReadFromOperatingSystem      | 16       |  2.741 ns | 0.4890 ns | 0.2171 ns |  1.01 |    0.11 |         - |          NA |
// | 'cached, refreshed every Interval reads' | 16       |  4.689 ns | 0.1220 ns | 0.0542 ns |  1.72 |    0.13 |         - |          NA |
// |                                          |          |           |           |           |       |         |           |             |
// | ProcessorId.ReadFromOperatingSystem      | 64       |  2.994 ns | 0.7472 ns | 0.3318 ns |  1.01 |    0.15 |         - |          NA |
// | 'cached, refreshed every Interval reads' | 64       |  4.127 ns | 1.4981 ns | 0.6652 ns |  1.39 |    0.26 |         - |          NA |
// |                                          |          |           |           |           |       |         |           |             |
// | ProcessorId.ReadFromOperatingSystem      | 256      |  3.176 ns | 0.3140 ns | 0.1120 ns |  1.00 |    0.05 |         - |          NA |
// | 'cached, refreshed every Interval reads' | 256      |  3.419 ns | 0.3415 ns | 0.1516 ns |  1.08 |    0.06 |         - |          NA |

using BenchmarkDotNet.Attributes;

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
