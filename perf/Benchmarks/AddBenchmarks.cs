// Last results, on the 2-core VM (2 logical cores; read ratios within one run, not absolutes):
//   dotnet run -c Release --project perf/Benchmarks -- --filter '*AddBenchmarks.InterlockedIncrement' \
//       '*AddBenchmarks.Partitioned*' '*AddBenchmarks.OpenTelemetry' '*TagBenchmarks*' --job short
//   dense per-partition arenas (8-byte slots, saturating adds); the same run at commit 426be8e
//   (padded cells), and what the differences come from: perf/results/README.md
//
// BenchmarkDotNet v0.14.0, Debian GNU/Linux 12 (bookworm)
// AMD EPYC, 1 CPU, 2 logical and 2 physical cores
// .NET SDK 10.0.401
//   [Host]   : .NET 10.0.12 (10.0.1226.42308), X64 RyuJIT AVX-512F+CD+BW+DQ+VL+VBMI
//
// Job=ShortRun  IterationCount=3  LaunchCount=1  WarmupCount=3
//
// | Method                                            | Mean      | Error     | StdDev    | Ratio | RatioSD | Allocated | Alloc Ratio |
// |-------------------------------------------------- |----------:|----------:|----------:|------:|--------:|----------:|------------:|
// | 'Interlocked.Increment (shared-interlocked)'      |  4.180 ns | 0.5466 ns | 0.0300 ns |  1.00 |    0.01 |         - |          NA |
// | 'partitioned (PerProcessor, bound)'               |  1.037 ns | 1.4096 ns | 0.0773 ns |  0.25 |    0.02 |         - |          NA |
// | 'partitioned-interlocked (PerProcessor, no rseq)' |  5.936 ns | 1.1610 ns | 0.0636 ns |  1.42 |    0.02 |         - |          NA |
// | 'partitioned-per-thread (bound)'                  |  1.338 ns | 0.1853 ns | 0.0102 ns |  0.32 |    0.00 |         - |          NA |
// | partitioned-ttas                                  |  5.987 ns | 0.7567 ns | 0.0415 ns |  1.43 |    0.01 |         - |          NA |
// | partitioned-monitor                               | 12.865 ns | 1.3312 ns | 0.0730 ns |  3.08 |    0.02 |         - |          NA |
// | 'opentelemetry Counter<long>.Add'                 |  9.637 ns | 0.5150 ns | 0.0282 ns |  2.31 |    0.02 |         - |          NA |
//
// Earlier, on an Intel Xeon 2-core VM with padded cells (commit 6178c04): Interlocked.Increment
// 8.58 ns, partitioned 2.18 ns, partitioned-per-thread 3.26 ns; the per-thread figure swung by
// about 1.5 ns between runs of the same code there.

using System.Diagnostics.Metrics;
using BenchmarkDotNet.Attributes;
using OpenTelemetry;
using OpenTelemetry.Metrics;
using ScalableMetrics.Platform;
using ScalableMetrics.Scaling.Implementations;

namespace ScalableMetrics.Benchmarks;

/// <summary>
/// One add of 1 on one thread, for every counter implementation the scaling harness measures
/// without tags (the same code: the harness's adders are compiled in), prometheus-net's bound
/// child and its labelled call included, against an <see cref="Interlocked.Increment(ref long)"/>
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
    private PrometheusNetCounter.ChildAdder _prometheusNet;
    private PrometheusNetCounter.LabelledAdder _prometheusNetLabelled;

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
        Prometheus.Counter prometheusNet = PrometheusNetCounter.NewCounter();
        _prometheusNet = new PrometheusNetCounter.ChildAdder(PrometheusNetCounter.Child(prometheusNet));
        _prometheusNetLabelled = new PrometheusNetCounter.LabelledAdder(prometheusNet);
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

    [Benchmark(Description = "prometheus-net (child taken once, Inc())")]
    public void PrometheusNet() => _prometheusNet.Add();

    [Benchmark(Description = "prometheus-net-labelled (WithLabels(3 strings).Inc())")]
    public void PrometheusNetLabelled() => _prometheusNetLabelled.Add();
}
