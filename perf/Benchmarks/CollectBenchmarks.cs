// Last results, on the 2-core VM (2 logical cores; read ratios within one run, not absolutes):
//   dotnet run -c Release --project perf/Benchmarks -- --filter '*' --anyCategories collect --job short --iterationCount 7
//   one process per benchmark (BenchmarkDotNet default toolchain); core as of commit 2d7bb00
//
// BenchmarkDotNet v0.14.0, Debian GNU/Linux 12 (bookworm)
// Intel Xeon Processor, 1 CPU, 2 logical and 2 physical cores
// .NET SDK 10.0.401
//   [Host]     : .NET 10.0.12 (10.0.1226.42308), X64 RyuJIT AVX-512F+CD+BW+DQ+VL+VBMI
//
// IterationCount=7  LaunchCount=1  WarmupCount=3
//
// | Method                     | Series | Mean          | Error          | StdDev        | Ratio | RatioSD | Gen0    | Gen1    | Gen2    | Allocated | Alloc Ratio |
// |--------------------------- |------- |--------------:|---------------:|--------------:|------:|--------:|--------:|--------:|--------:|----------:|------------:|
// | 'Read() each bound series' | 1      |      28.83 ns |       1.977 ns |      0.878 ns |  1.00 |    0.04 |       - |       - |       - |         - |          NA |
// | counter.Collect()          | 1      |     146.34 ns |      10.085 ns |      4.478 ns |  5.08 |    0.21 |  0.0019 |       - |       - |     160 B |          NA |
// |                            |        |               |                |               |       |         |         |         |         |           |             |
// | 'Read() each bound series' | 100    |   2,230.74 ns |     200.877 ns |     71.635 ns |  1.00 |    0.04 |       - |       - |       - |         - |          NA |
// | counter.Collect()          | 100    |   3,667.26 ns |   1,573.563 ns |    698.672 ns |  1.65 |    0.30 |  0.0267 |       - |       - |    2536 B |          NA |
// |                            |        |               |                |               |       |         |         |         |         |           |             |
// | 'Read() each bound series' | 10000  | 245,158.31 ns |  11,052.080 ns |  4,907.192 ns |  1.00 |    0.03 |       - |       - |       - |         - |          NA |
// | counter.Collect()          | 10000  | 863,781.82 ns | 114,166.176 ns | 40,712.758 ns |  3.52 |    0.17 | 31.2500 | 31.2500 | 31.2500 |  240387 B |          NA |

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
