// Last results, on the 2-core VM (2 logical cores; read ratios within one run, not absolutes):
//   dotnet run -c Release --project perf/Benchmarks -- --filter '*' --anyCategories add --job short --iterationCount 7
//   one process per benchmark (BenchmarkDotNet default toolchain); core as of commit 2d7bb00
//
// BenchmarkDotNet v0.14.0, Debian GNU/Linux 12 (bookworm)
// Intel Xeon Processor, 1 CPU, 2 logical and 2 physical cores
// .NET SDK 10.0.401
//   [Host]     : .NET 10.0.12 (10.0.1226.42308), X64 RyuJIT AVX-512F+CD+BW+DQ+VL+VBMI
//
// IterationCount=7  LaunchCount=1  WarmupCount=3
//
// | Method                                       | Mean       | Error     | StdDev    | Ratio | RatioSD | Allocated | Alloc Ratio |
// |--------------------------------------------- |-----------:|----------:|----------:|------:|--------:|----------:|------------:|
// | 'Interlocked.Increment (shared-interlocked)' |  7.1704 ns | 2.2405 ns | 0.9948 ns | 1.017 |    0.19 |         - |          NA |
// | array-unpadded                               |  0.1097 ns | 0.1095 ns | 0.0391 ns | 0.016 |    0.01 |         - |          NA |
// | array-padded                                 |  0.0000 ns | 0.0000 ns | 0.0000 ns | 0.000 |    0.00 |         - |          NA |
// | 'partitioned (PerProcessor, bound)'          |  6.5440 ns | 0.6360 ns | 0.2824 ns | 0.929 |    0.13 |         - |          NA |
// | 'partitioned-per-thread (bound)'             |  2.1749 ns | 0.5709 ns | 0.2036 ns | 0.309 |    0.05 |         - |          NA |
// | partitioned-ttas                             |  9.6523 ns | 0.7494 ns | 0.2672 ns | 1.370 |    0.19 |         - |          NA |
// | partitioned-monitor                          | 24.4835 ns | 5.9361 ns | 2.6356 ns | 3.474 |    0.59 |         - |          NA |
// | 'opentelemetry Counter<long>.Add'            | 21.2825 ns | 1.7603 ns | 0.7816 ns | 3.020 |    0.42 |         - |          NA |

using System.Diagnostics.Metrics;
using BenchmarkDotNet.Attributes;
using OpenTelemetry;
using OpenTelemetry.Metrics;
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
