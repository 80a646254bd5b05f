// Last results, on the 2-core VM (2 logical cores; other sessions shared the machine, so read ratios, not absolutes):
//   dotnet run -c Release --project perf/Benchmarks -- --filter '*' --anyCategories collect --job short --iterationCount 7
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
// | Method                     | Series | Mean          | Error          | StdDev         | Ratio | RatioSD | Gen0    | Gen1    | Gen2    | Allocated | Alloc Ratio |
// |--------------------------- |------- |--------------:|---------------:|---------------:|------:|--------:|--------:|--------:|--------:|----------:|------------:|
// | 'Read() each bound series' | 1      |      24.41 ns |       1.349 ns |       0.599 ns |  1.00 |    0.03 |       - |       - |       - |         - |          NA |
// | counter.Collect()          | 1      |     210.16 ns |      72.348 ns |      32.123 ns |  8.61 |    1.25 |  0.0019 |       - |       - |     160 B |          NA |
// |                            |        |               |                |                |       |         |         |         |         |           |             |
// | 'Read() each bound series' | 100    |   2,240.17 ns |     368.781 ns |     131.511 ns |  1.00 |    0.07 |       - |       - |       - |         - |          NA |
// | counter.Collect()          | 100    |   3,597.47 ns |     529.180 ns |     188.711 ns |  1.61 |    0.11 |  0.0267 |       - |       - |    2536 B |          NA |
// |                            |        |               |                |                |       |         |         |         |         |           |             |
// | 'Read() each bound series' | 10000  | 254,804.98 ns |  50,003.072 ns |  17,831.577 ns |  1.00 |    0.09 |       - |       - |       - |         - |          NA |
// | counter.Collect()          | 10000  | 938,978.11 ns | 243,321.898 ns | 108,036.431 ns |  3.70 |    0.46 | 28.3203 | 28.3203 | 28.3203 |  240432 B |          NA |

using BenchmarkDotNet.Attributes;

namespace ScalableMetrics.Benchmarks;

/// <summary>
/// Collecting a counter of 1, 100 and 10,000 series: <see cref="PartitionedCounter.Collect"/>
/// against reading each bound series in a loop (the summing alone, without the readings list).
/// </summary>
[MemoryDiagnoser]
[BenchmarkCategory("collect")]
public class CollectBenchmarks
{
    private PartitionedCounter _counter = null!;
    private CounterSeries[] _series = [];

    [Params(1, 100, 10_000)]
    public int Series { get; set; }

    [GlobalSetup]
    public void Setup()
    {
        var registry = new MetricRegistry(new MetricRegistryOptions { MaxSeriesPerInstrument = Math.Max(2, Series) });
        _counter = registry.CreateCounter("bench.collect");
        _series = new CounterSeries[Series];
        for (int i = 0; i < Series; i++)
        {
            _series[i] = _counter.Bind(new KeyValuePair<string, object?>("series", (long)i));
            _series[i].Add(1);
        }
    }

    [Benchmark(Baseline = true, Description = "Read() each bound series")]
    public long ReadEach()
    {
        long total = 0;
        foreach (CounterSeries series in _series)
        {
            total += series.Read();
        }

        return total;
    }

    [Benchmark(Description = "counter.Collect()")]
    public int Collect() => _counter.Collect().Count;
}
