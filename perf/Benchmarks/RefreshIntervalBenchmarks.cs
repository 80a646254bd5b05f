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
