// Last results, on the 2-core VM (2 logical cores; read ratios within one run, not absolutes):
//   dotnet run -c Release --project perf/Benchmarks -- --filter '*' --anyCategories add --job short --iterationCount 7
//   one process per benchmark (BenchmarkDotNet default toolchain); per-thread cells in one array per series (commit 6178c04)
//
// BenchmarkDotNet v0.14.0, Debian GNU/Linux 12 (bookworm)
// Intel Xeon Processor, 1 CPU, 2 logical and 2 physical cores
// .NET SDK 10.0.401
//   [Host]     : .NET 10.0.12 (10.0.1226.42308), X64 RyuJIT AVX-512F+CD+BW+DQ+VL+VBMI
//
// IterationCount=7  LaunchCount=1  WarmupCount=3
//
// | Method                                            | Mean       | Error     | StdDev    | Median     | Ratio | RatioSD | Allocated | Alloc Ratio |
// |-------------------------------------------------- |-----------:|----------:|----------:|-----------:|------:|--------:|----------:|------------:|
// | 'Interlocked.Increment (shared-interlocked)'      |  8.5778 ns | 0.2219 ns | 0.0791 ns |  8.5765 ns |  1.00 |    0.01 |         - |          NA |
// | array-unpadded                                    |  1.8408 ns | 4.3900 ns | 1.9492 ns |  1.0461 ns |  0.21 |    0.21 |         - |          NA |
// | array-padded                                      |  0.3364 ns | 0.5853 ns | 0.2599 ns |  0.2014 ns |  0.04 |    0.03 |         - |          NA |
// | 'partitioned (PerProcessor, bound)'               |  2.1804 ns | 0.1779 ns | 0.0635 ns |  2.1789 ns |  0.25 |    0.01 |         - |          NA |
// | 'partitioned-interlocked (PerProcessor, no rseq)' | 10.0209 ns | 3.0069 ns | 1.0723 ns |  9.7173 ns |  1.17 |    0.12 |         - |          NA |
// | 'partitioned-per-thread (bound)'                  |  3.2636 ns | 0.4163 ns | 0.1848 ns |  3.1915 ns |  0.38 |    0.02 |         - |          NA |
// | partitioned-ttas                                  | 10.7232 ns | 1.8090 ns | 0.8032 ns | 10.5878 ns |  1.25 |    0.09 |         - |          NA |
// | partitioned-monitor                               | 28.8485 ns | 1.0913 ns | 0.4845 ns | 28.8026 ns |  3.36 |    0.06 |         - |          NA |
// | 'opentelemetry Counter<long>.Add'                 | 16.6812 ns | 5.7777 ns | 2.5653 ns | 15.9287 ns |  1.94 |    0.28 |         - |          NA |
//
// Earlier runs: with restartable sequences and the previous per-thread storage (a cell object per
// thread, commit ea9b968): Interlocked.Increment 8.12 ns, partitioned 2.86 ns, partitioned-per-thread
// 3.70 ns; before restartable sequences (commit 2d7bb00): Interlocked.Increment 7.17 ns, partitioned
// (then cached processor id + Interlocked) 6.54 ns, partitioned-per-thread 2.17 ns.
// The per-thread figure swings by about 1.5 ns between runs of the same code (1.7 to 3.4 ns seen).

using System.Diagnostics.Metrics;
using BenchmarkDotNet.Attributes;
using OpenTelemetry;
using OpenTelemetry.Metrics;
using ScalableMetrics.Platform;
using ScalableMetrics.Scaling.Implementations;

namespace ScalableMetrics.Benchmarks;

/// <summary>
/// One add of 1 on one thread, for every implementation the scaling harness measures (the same
/// code: the harness's adders are compiled in), against an <see cref="Interlocked.Increment(ref long)"/>
/// on a private field.
/// </summary>
[MemoryDiagnoser]
[BenchmarkCategory("add")]
public class AddBenchmarks
{
    private long _shared;
    private ArrayUnpadded.Adder _arrayUnpadded;
    private ArrayPadded.Adder _arrayPadded;
    private CounterSeries _perProcessor = null!;
    private CounterSeries _perProcessorInterlocked = null!;
    private CounterSeries _perThread = null!;
    private PartitionedTtas.Adder _ttas;
    private PartitionedMonitor.Adder _monitor;
    private Meter _meter = null!;
    private MeterProvider _meterProvider = null!;
    private Counter<long> _openTelemetry = null!;

    [GlobalSetup]
    public void Setup()
    {
        _arrayUnpadded = new ArrayUnpadded.Adder(new long[2], 0);
        _arrayPadded = new ArrayPadded.Adder(new PaddedSlot[2], 0);
        _perProcessor = new MetricRegistry(new MetricRegistryOptions { Strategy = PartitionStrategy.PerProcessor }).CreateCounter("bench.adds").Bind();
        _perProcessorInterlocked = new MetricRegistry(new MetricRegistryOptions { Strategy = PartitionStrategy.PerProcessor, UseRestartableSequences = false }).CreateCounter("bench.adds").Bind();
        _perThread = new MetricRegistry(new MetricRegistryOptions { Strategy = PartitionStrategy.PerThread }).CreateCounter("bench.adds").Bind();
        _ttas = new PartitionedTtas.Adder(new TtasCell[ProcessorId.PartitionCount]);
        var monitorCells = new MonitorCell[ProcessorId.PartitionCount];
        for (int i = 0; i < monitorCells.Length; i++)
        {
            monitorCells[i] = new MonitorCell();
        }

        _monitor = new PartitionedMonitor.Adder(monitorCells);
        _meter = new Meter("ScalableMetrics.Benchmarks.Add");
        _openTelemetry = _meter.CreateCounter<long>("bench.adds");
        _meterProvider = Sdk.CreateMeterProviderBuilder()
            .AddMeter(_meter.Name)
            .AddReader(new BaseExportingMetricReader(new LongSumExporter("bench.adds")))
            .Build();
    }

    [GlobalCleanup]
    public void Cleanup()
    {
        _meterProvider.Dispose();
        _meter.Dispose();
    }

    [Benchmark(Baseline = true, Description = "Interlocked.Increment (shared-interlocked)")]
    public long InterlockedIncrement() => Interlocked.Increment(ref _shared);

    [Benchmark(Description = "array-unpadded")]
    public void ArrayUnpadded() => _arrayUnpadded.Add();

    [Benchmark(Description = "array-padded")]
    public void ArrayPadded() => _arrayPadded.Add();

    [Benchmark(Description = "partitioned (PerProcessor, bound)")]
    public void PartitionedPerProcessor() => _perProcessor.Increment();

    [Benchmark(Description = "partitioned-interlocked (PerProcessor, no rseq)")]
    public void PartitionedPerProcessorInterlocked() => _perProcessorInterlocked.Increment();

    [Benchmark(Description = "partitioned-per-thread (bound)")]
    public void PartitionedPerThread() => _perThread.Increment();

    [Benchmark(Description = "partitioned-ttas")]
    public void PartitionedTtas() => _ttas.Add();

    [Benchmark(Description = "partitioned-monitor")]
    public void PartitionedMonitor() => _monitor.Add();

    [Benchmark(Description = "opentelemetry Counter<long>.Add")]
    public void OpenTelemetry() => _openTelemetry.Add(1);
}
