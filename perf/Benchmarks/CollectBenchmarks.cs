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
