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
