// Results (2 logical cores): perf/results/README.md, section "Exemplars on exponential histograms (issue 30)". Run:
//   dotnet run -c Release --project perf/Benchmarks -- --filter '*ExponentialRecordBenchmarks*' --job short
// Before and after a change to the record (the off case builds on a tree without exemplars on exponential histograms too):
//   bash perf/compare-trees.sh BEFORE . 3 OUT -- dotnet run -c Release --no-build --project perf/Benchmarks -- \
//     --filter '*ExponentialRecordBenchmarks.Off' --job short

using System.Diagnostics;
using BenchmarkDotNet.Attributes;
using BenchmarkDotNet.Configs;
using ScalableMetrics.Scaling.Implementations;

namespace ScalableMetrics.Benchmarks;

/// <summary>
/// A bound exponential histogram record on one thread, the instrument's defaults (scale 3, 2^-10 to
/// 2^20): exemplars off (the default, the baseline), and on: <see cref="ExemplarFilter.TraceBased"/>
/// with no current activity (the filter's test only), with a recorded <see cref="Activity"/> current,
/// and <see cref="ExemplarFilter.AlwaysOn"/> with none (every record offered to the reservoir,
/// which keeps the first 20 after each read and then one in n). Values cycle as
/// <see cref="HistogramRecordBenchmarks"/>' do, over 15 exponential buckets and the zero bucket.
/// </summary>
[MemoryDiagnoser]
[BenchmarkCategory("exponential-record")]
[CategoriesColumn]
public class ExponentialRecordBenchmarks
{
    private readonly double[] _cycle = HistogramValues.Cycle;
    private int _next;
    private ExponentialHistogramSeries _off = null!;
    private ExponentialHistogramSeries _traceBased = null!;
    private ExponentialHistogramSeries _alwaysOn = null!;
    private Activity _recorded = null!;

    [GlobalSetup(Targets = [nameof(Off), nameof(TraceBasedNoActivity), nameof(AlwaysOnNoActivity)])]
    public void Setup()
    {
        _off = new MetricRegistry().CreateExponentialHistogram("bench.exponential", "ms").Bind();
        _traceBased = new MetricRegistry(new MetricRegistryOptions { ExemplarFilter = ExemplarFilter.TraceBased }).CreateExponentialHistogram("bench.exponential", "ms").Bind();
        _alwaysOn = new MetricRegistry(new MetricRegistryOptions { ExemplarFilter = ExemplarFilter.AlwaysOn }).CreateExponentialHistogram("bench.exponential", "ms").Bind();
        _recorded = new Activity("bench.exponential");
        _recorded.Start();
        _recorded.ActivityTraceFlags = ActivityTraceFlags.Recorded;
        Activity.Current = null;
    }

    // The calls run on the setup's thread, synchronously after it: the activity set here is current in them.
    [GlobalSetup(Target = nameof(TraceBasedRecorded))]
    public void SetupRecorded()
    {
        Setup();
        Activity.Current = _recorded;
    }

    [GlobalCleanup]
    public void Cleanup() => _recorded.Stop();

    [Benchmark(Baseline = true, Description = "off")]
    public void Off() => _off.Record(NextValue());

    [Benchmark(Description = "TraceBased, no activity")]
    public void TraceBasedNoActivity() => _traceBased.Record(NextValue());

    [Benchmark(Description = "TraceBased, recorded activity")]
    public void TraceBasedRecorded() => _traceBased.Record(NextValue());

    [Benchmark(Description = "AlwaysOn, no activity")]
    public void AlwaysOnNoActivity() => _alwaysOn.Record(NextValue());

    private double NextValue() => HistogramValues.At(_cycle, _next++);
}
