// Results (2 logical cores): perf/results/README.md, section "Instruments (issue 10)". Run:
//   dotnet run -c Release --project perf/Benchmarks -- --filter '*' --anyCategories instrument-write --job short
// The bar: 0 bytes allocated per write.

using BenchmarkDotNet.Attributes;

namespace ScalableMetrics.Benchmarks;

/// <summary>
/// One write to a bound series of each of the other instruments, on one thread, against a bound
/// counter's <see cref="CounterSeries{TValue}.Add"/> (the registry's defaults: PerProcessor, a restartable
/// sequence where the process supports it): an up-down counter's add (a wrapping slot, either
/// sign), a double counter's add (a double slot) and a gauge's set (one cell, not partitioned).
/// </summary>
[MemoryDiagnoser]
[BenchmarkCategory("instrument-write")]
public class InstrumentWriteBenchmarks
{
    private CounterSeries _counter = null!;
    private UpDownCounterSeries _upDownCounter = null!;
    private DoubleCounterSeries _doubleCounter = null!;
    private GaugeSeries _gauge = null!;
    private long _next;

    [GlobalSetup]
    public void Setup()
    {
        var registry = new MetricRegistry();
        _counter = registry.CreateCounter("bench.counter").Bind();
        _upDownCounter = registry.CreateUpDownCounter("bench.up_down").Bind();
        _doubleCounter = registry.CreateDoubleCounter("bench.double").Bind();
        _gauge = registry.CreateGauge("bench.gauge").Bind();
    }

    [Benchmark(Baseline = true, Description = "counter bound Add(1)")]
    public void CounterAdd() => _counter.Add(1);

    [Benchmark(Description = "up-down counter bound Add(1)")]
    public void UpDownCounterAdd() => _upDownCounter.Add(1);

    [Benchmark(Description = "up-down counter bound Add(-1)")]
    public void UpDownCounterSubtract() => _upDownCounter.Add(-1);

    [Benchmark(Description = "double counter bound Add(0.5)")]
    public void DoubleCounterAdd() => _doubleCounter.Add(0.5);

    [Benchmark(Description = "gauge bound Set(value)")]
    public void GaugeSet() => _gauge.Set(_next++);
}
