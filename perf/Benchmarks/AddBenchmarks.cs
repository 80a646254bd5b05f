// Last results, on the 2-core VM (2 logical cores; other sessions shared the machine, so read ratios, not absolutes):
//   dotnet run -c Release --project perf/Benchmarks -- --filter '*' --anyCategories add --job short --iterationCount 7
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
// | Method                                       | Mean       | Error     | StdDev    | Median     | Ratio | RatioSD | Allocated | Alloc Ratio |
// |--------------------------------------------- |-----------:|----------:|----------:|-----------:|------:|--------:|----------:|------------:|
// | 'Interlocked.Increment (shared-interlocked)' |  8.0267 ns | 1.3653 ns | 0.6062 ns |  8.2877 ns | 1.005 |    0.10 |         - |          NA |
// | array-unpadded                               |  0.0149 ns | 0.0589 ns | 0.0261 ns |  0.0000 ns | 0.002 |    0.00 |         - |          NA |
// | array-padded                                 |  0.3335 ns | 0.2877 ns | 0.1277 ns |  0.3917 ns | 0.042 |    0.02 |         - |          NA |
// | 'partitioned (PerProcessor, bound)'          |  7.3226 ns | 0.5740 ns | 0.2549 ns |  7.3006 ns | 0.917 |    0.07 |         - |          NA |
// | 'partitioned-per-thread (bound)'             |  4.3572 ns | 0.1361 ns | 0.0485 ns |  4.3559 ns | 0.546 |    0.04 |         - |          NA |
// | partitioned-ttas                             | 11.6804 ns | 0.6596 ns | 0.2929 ns | 11.8213 ns | 1.462 |    0.11 |         - |          NA |
// | partitioned-monitor                          | 26.7684 ns | 6.3245 ns | 2.8081 ns | 26.5905 ns | 3.351 |    0.41 |         - |          NA |
// | 'opentelemetry Counter<long>.Add'            | 14.4612 ns | 2.1136 ns | 0.7537 ns | 14.3302 ns | 1.811 |    0.16 |         - |          NA |

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

    [Benchmark(Description = "partitioned-per-thread (bound)")]
    public void PartitionedPerThread() => _perThread.Increment();

    [Benchmark(Description = "partitioned-ttas")]
    public void PartitionedTtas() => _ttas.Add();

    [Benchmark(Description = "partitioned-monitor")]
    public void PartitionedMonitor() => _monitor.Add();

    [Benchmark(Description = "opentelemetry Counter<long>.Add")]
    public void OpenTelemetry() => _openTelemetry.Add(1);
}
