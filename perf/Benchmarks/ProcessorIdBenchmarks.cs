// Last results, on the 2-core VM (2 logical cores; read ratios within one run, not absolutes):
//   dotnet run -c Release --project perf/Benchmarks -- --filter '*' --anyCategories processor-id --job short --iterationCount 7
//   one process per benchmark (BenchmarkDotNet default toolchain); core as of commit 2d7bb00
//
// BenchmarkDotNet v0.14.0, Debian GNU/Linux 12 (bookworm)
// Intel Xeon Processor, 1 CPU, 2 logical and 2 physical cores
// .NET SDK 10.0.401
//   [Host]     : .NET 10.0.12 (10.0.1226.42308), X64 RyuJIT AVX-512F+CD+BW+DQ+VL+VBMI
//
// IterationCount=7  LaunchCount=1  WarmupCount=3
//
// | Method                                               | Mean     | Error     | StdDev    | Ratio | RatioSD | Allocated | Alloc Ratio |
// |----------------------------------------------------- |---------:|----------:|----------:|------:|--------:|----------:|------------:|
// | 'ProcessorId.ReadFromOperatingSystem (sched_getcpu)' | 2.367 ns | 0.5384 ns | 0.2391 ns |  1.01 |    0.13 |         - |          NA |
// | 'ProcessorId.CurrentPartition (cached, every 64)'    | 1.285 ns | 0.0376 ns | 0.0167 ns |  0.55 |    0.05 |         - |          NA |
// | Thread.GetCurrentProcessorId                         | 3.038 ns | 0.7453 ns | 0.3309 ns |  1.29 |    0.18 |         - |          NA |
// | '[ThreadStatic] int read'                            | 1.180 ns | 0.1043 ns | 0.0372 ns |  0.50 |    0.05 |         - |          NA |

using BenchmarkDotNet.Attributes;
using ScalableMetrics.Platform;

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
#pragma warning disable IDE1006 // a [ThreadStatic] takes the t_ prefix, as in the runtime; the naming rules cannot tell
    [ThreadStatic]
    private static int t_value;
#pragma warning restore IDE1006

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
