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
