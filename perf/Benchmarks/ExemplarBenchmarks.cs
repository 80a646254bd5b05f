// Run (the off cases are the baselines, the same code as AddBenchmarks' and HistogramRecordBenchmarks' bound cases):
//   dotnet run -c Release --project perf/Benchmarks -- --filter '*ExemplarBenchmarks*' --job short

using System.Diagnostics;
using BenchmarkDotNet.Attributes;
using BenchmarkDotNet.Configs;
using ScalableMetrics.Scaling.Implementations;

namespace ScalableMetrics.Benchmarks;

/// <summary>
/// What exemplars cost a bound counter add and a bound histogram record: off (the default), on with
/// no current activity (the filter's test only), and on with a recorded <see cref="Activity"/>
/// current (every measurement sampled: the clock, the slot's compare-and-swap and stores).
/// </summary>
[MemoryDiagnoser]
[BenchmarkCategory("exemplars")]
[CategoriesColumn]
[GroupBenchmarksBy(BenchmarkLogicalGroupRule.ByCategory)]
public class ExemplarBenchmarks
{
    private const string Counter = "counter add";
    private const string Histogram = "histogram record";

    private readonly double[] _cycle = HistogramValues.Cycle;
    private int _next;
    private CounterSeries _counterOff = null!;
    private CounterSeries _counterOn = null!;
    private HistogramSeries _histogramOff = null!;
    private HistogramSeries _histogramOn = null!;
    private Activity _recorded = null!;

    [GlobalSetup(Targets = [nameof(CounterOff), nameof(CounterOnNoActivity), nameof(HistogramOff), nameof(HistogramOnNoActivity)])]
    public void Setup()
    {
        var off = new MetricRegistry();
        var on = new MetricRegistry(new MetricRegistryOptions { ExemplarFilter = ExemplarFilter.TraceBased });
        _counterOff = off.CreateCounter("bench.exemplars").Bind();
        _counterOn = on.CreateCounter("bench.exemplars").Bind();
        _histogramOff = off.CreateHistogram("bench.exemplars.duration", "ms").Bind();
        _histogramOn = on.CreateHistogram("bench.exemplars.duration", "ms").Bind();
        _recorded = new Activity("bench.exemplars");
        _recorded.Start();
        _recorded.ActivityTraceFlags = ActivityTraceFlags.Recorded;
        Activity.Current = null;
    }

    // The calls run on the setup's thread, synchronously after it: the activity set here is current in them.
    [GlobalSetup(Targets = [nameof(CounterOnRecorded), nameof(HistogramOnRecorded)])]
    public void SetupRecorded()
    {
        Setup();
        Activity.Current = _recorded;
    }

    [GlobalCleanup]
    public void Cleanup() => _recorded.Stop();

    [Benchmark(Baseline = true, Description = "off")]
    [BenchmarkCategory(Counter)]
    public void CounterOff() => _counterOff.Increment();

    [Benchmark(Description = "on, no activity")]
    [BenchmarkCategory(Counter)]
    public void CounterOnNoActivity() => _counterOn.Increment();

    [Benchmark(Description = "on, recorded activity")]
    [BenchmarkCategory(Counter)]
    public void CounterOnRecorded() => _counterOn.Increment();

    [Benchmark(Baseline = true, Description = "off")]
    [BenchmarkCategory(Histogram)]
    public void HistogramOff() => _histogramOff.Record(NextValue());

    [Benchmark(Description = "on, no activity")]
    [BenchmarkCategory(Histogram)]
    public void HistogramOnNoActivity() => _histogramOn.Record(NextValue());

    [Benchmark(Description = "on, recorded activity")]
    [BenchmarkCategory(Histogram)]
    public void HistogramOnRecorded() => _histogramOn.Record(NextValue());

    // As HistogramRecordBenchmarks cycles its values, so that the off cases time the same body.
    private double NextValue() => HistogramValues.At(_cycle, _next++);
}
