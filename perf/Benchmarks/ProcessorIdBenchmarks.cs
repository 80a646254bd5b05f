// Last results, on the 2-core VM (2 logical cores; other sessions shared the machine, so read ratios, not absolutes):
//   dotnet run -c Release --project perf/Benchmarks -- --filter '*' --anyCategories processor-id --job short --iterationCount 7
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
// | Method                                               | Mean     | Error     | StdDev    | Ratio | RatioSD | Allocated | Alloc Ratio |
// |----------------------------------------------------- |---------:|----------:|----------:|------:|--------:|----------:|------------:|
// | 'ProcessorId.ReadFromOperatingSystem (sched_getcpu)' | 3.091 ns | 0.2827 ns | 0.1255 ns |  1.00 |    0.05 |         - |          NA |
// | 'ProcessorId.CurrentPartition (cached, every 64)'    | 3.681 ns | 0.8013 ns | 0.3558 ns |  1.19 |    0.12 |         - |          NA |
// | Thread.GetCurrentProcessorId                         | 2.801 ns | 0.5014 ns | 0.2226 ns |  0.91 |    0.08 |         - |          NA |
// | '[ThreadStatic] int read'                            | 1.580 ns | 0.2179 ns | 0.0968 ns |  0.51 |    0.04 |         - |          NA |

using BenchmarkDotNet.Attributes;

namespace ScalableMetrics.Benchmarks;

/// <summary>
/// What a processor id costs: the operating system call, the core's per-thread cache, and the
/// runtime's own cache; and, for scale, one read of a <see cref="ThreadStaticAttribute"/> field
/// outside CoreLib, the floor under any per-thread cache.
/// </summary>
[MemoryDiagnoser]
[BenchmarkCategory("processor-id")]
public class ProcessorIdBenchmarks
{
    [ThreadStatic]
    private static int t_value;

    [GlobalSetup]
    public void Setup() => t_value = Environment.ProcessorCount;

    [Benchmark(Baseline = true, Description = "ProcessorId.ReadFromOperatingSystem (sched_getcpu)")]
    public int OperatingSystem() => ProcessorId.ReadFromOperatingSystem();

    [Benchmark(Description = "ProcessorId.CurrentPartition (cached, every 64)")]
    public int CurrentPartition() => ProcessorId.CurrentPartition();

    [Benchmark(Description = "Thread.GetCurrentProcessorId")]
    public int ThreadGetCurrentProcessorId() => Thread.GetCurrentProcessorId();

    [Benchmark(Description = "[ThreadStatic] int read")]
    public int ThreadStaticRead() => t_value;
}
