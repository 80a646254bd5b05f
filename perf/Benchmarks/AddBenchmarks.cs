// Last results, on the 2-core VM (2 logical cores; read ratios within one run, not absolutes):
//   dotnet run -c Release --project perf/Benchmarks -- --filter '*' --anyCategories add --job short --iterationCount 7
//   one process per benchmark (BenchmarkDotNet default toolchain); core with restartable sequences (commit ea9b968)
//
// BenchmarkDotNet v0.14.0, Debian GNU/Linux 12 (bookworm)
// Intel Xeon Processor, 1 CPU, 2 logical and 2 physical cores
// .NET SDK 10.0.401
//   [Host]     : .NET 10.0.12 (10.0.1226.42308), X64 RyuJIT AVX-512F+CD+BW+DQ+VL+VBMI
//
// IterationCount=7  LaunchCount=1  WarmupCount=3
//
// | Method                                            | Mean       | Error     | StdDev    | Ratio | RatioSD | Allocated | Alloc Ratio |
// |-------------------------------------------------- |-----------:|----------:|----------:|------:|--------:|----------:|------------:|
// | 'Interlocked.Increment (shared-interlocked)'      |  8.1213 ns | 2.6842 ns | 1.1918 ns |  1.02 |    0.21 |         - |          NA |
// | array-unpadded                                    |  0.7109 ns | 0.3548 ns | 0.1575 ns |  0.09 |    0.02 |         - |          NA |
// | array-padded                                      |  0.8256 ns | 0.0628 ns | 0.0279 ns |  0.10 |    0.02 |         - |          NA |
// | 'partitioned (PerProcessor, bound)'               |  2.8649 ns | 0.1612 ns | 0.0716 ns |  0.36 |    0.05 |         - |          NA |
// | 'partitioned-interlocked (PerProcessor, no rseq)' |  9.3636 ns | 0.2886 ns | 0.1281 ns |  1.18 |    0.17 |         - |          NA |
// | 'partitioned-per-thread (bound)'                  |  3.7049 ns | 0.6840 ns | 0.3037 ns |  0.47 |    0.08 |         - |          NA |
// | partitioned-ttas                                  | 11.8673 ns | 0.2949 ns | 0.1309 ns |  1.49 |    0.22 |         - |          NA |
// | partitioned-monitor                               | 30.0550 ns | 1.9389 ns | 0.8609 ns |  3.77 |    0.56 |         - |          NA |
// | 'opentelemetry Counter<long>.Add'                 | 21.0394 ns | 0.9507 ns | 0.4221 ns |  2.64 |    0.39 |         - |          NA |
//
// Earlier run (core before restartable sequences, commit 2d7bb00): Interlocked.Increment 7.17 ns,
// partitioned (then cached processor id + Interlocked) 6.54 ns, partitioned-per-thread 2.17 ns.
// The per-thread figure swings by about 1.5 ns between runs of the same code (1.7 to 3.4 ns seen).

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
