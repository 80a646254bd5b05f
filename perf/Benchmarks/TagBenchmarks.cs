// Results (2 logical cores): perf/results/README.md, section "Drop-in (issue 11)". Run:
//   dotnet run -c Release --project perf/Benchmarks -- --filter '*' --anyCategories tags --job short
// The bar (issue 11): 0 bytes allocated per add once its series exists; OpenTelemetry's own
// benchmarks give about 11 ns at 0 tags and 43 ns at 1 for its Counter<long>.Add.

using System.Diagnostics.Metrics;
using BenchmarkDotNet.Attributes;
using BenchmarkDotNet.Configs;
using OpenTelemetry;
using OpenTelemetry.Metrics;
using ScalableMetrics.Scaling.Implementations;

namespace ScalableMetrics.Benchmarks;

/// <summary>
/// The unbound tag lookup: <see cref="PartitionedCounter.Add(long, ReadOnlySpan{KeyValuePair{string, object}})"/>
/// with 0, 1, 3 and 8 tags, its series looked up on every call, against OpenTelemetry's
/// <see cref="Counter{T}.Add(T, ReadOnlySpan{KeyValuePair{string, object}})"/> with the same tags and a
/// <see cref="MeterProvider"/> listening (the baseline of each category); and an add to a series
/// bound once, what the lookup costs over.
/// </summary>
/// <remarks>The tags are made once, so the caller boxes nothing, and every series (and
/// OpenTelemetry's metric point) exists before measuring: an add measures a lookup, not a
/// creation. The 3 tags are ASP.NET Core's request tags; the 8 add five more of the kinds a
/// service sets (strings, a bool, an integer).</remarks>
[MemoryDiagnoser]
[BenchmarkCategory("tags")]
[CategoriesColumn]
[GroupBenchmarksBy(BenchmarkLogicalGroupRule.ByCategory)]
public class TagBenchmarks
{
    private const string NoTags = "0 tags";
    private const string OneTag = "1 tag";
    private const string ThreeTags = "3 tags";
    private const string EightTags = "8 tags";

    private readonly KeyValuePair<string, object?>[] _tags = RequestTags.All;

    private PartitionedCounter _counter = null!;
    private CounterSeries _bound = null!;
    private Meter _meter = null!;
    private MeterProvider _meterProvider = null!;
    private Counter<long> _openTelemetry = null!;

    [GlobalSetup]
    public void Setup()
    {
        _counter = new MetricRegistry().CreateCounter("bench.requests", "{request}");
        _bound = _counter.Bind(_tags.AsSpan(0, 3));
        _meter = new Meter("ScalableMetrics.Benchmarks.Tags");
        _openTelemetry = _meter.CreateCounter<long>("bench.requests", "{request}");
        _meterProvider = Sdk.CreateMeterProviderBuilder()
            .AddMeter(_meter.Name)
            .AddReader(new BaseExportingMetricReader(new LongSumExporter("bench.requests")))
            .Build();

        // Create every series (and OpenTelemetry's metric points) before measuring.
        foreach (int count in (int[])[0, 1, 3, 8])
        {
            _counter.Add(1, _tags.AsSpan(0, count));
            _openTelemetry.Add(1, _tags.AsSpan(0, count));
        }
    }

    [GlobalCleanup]
    public void Cleanup()
    {
        _meterProvider.Dispose();
        _meter.Dispose();
    }

    [Benchmark(Baseline = true, Description = "opentelemetry Counter<long>.Add, 0 tags")]
    [BenchmarkCategory(NoTags)]
    public void OpenTelemetry0() => _openTelemetry.Add(1);

    [Benchmark(Description = "counter.Add, 0 tags")]
    [BenchmarkCategory(NoTags)]
    public void Unbound0() => _counter.Add(1);

    [Benchmark(Baseline = true, Description = "opentelemetry Counter<long>.Add, 1 tag")]
    [BenchmarkCategory(OneTag)]
    public void OpenTelemetry1() => _openTelemetry.Add(1, _tags[0]);

    [Benchmark(Description = "counter.Add, 1 tag")]
    [BenchmarkCategory(OneTag)]
    public void Unbound1() => _counter.Add(1, _tags[0]);

    [Benchmark(Baseline = true, Description = "opentelemetry Counter<long>.Add, 3 tags")]
    [BenchmarkCategory(ThreeTags)]
    public void OpenTelemetry3() => _openTelemetry.Add(1, _tags[0], _tags[1], _tags[2]);

    [Benchmark(Description = "counter.Add, 3 tags")]
    [BenchmarkCategory(ThreeTags)]
    public void Unbound3() => _counter.Add(1, _tags[0], _tags[1], _tags[2]);

    [Benchmark(Description = "bound series (3 tags)")]
    [BenchmarkCategory(ThreeTags)]
    public void Bound3() => _bound.Add(1);

    [Benchmark(Baseline = true, Description = "opentelemetry Counter<long>.Add, 8 tags")]
    [BenchmarkCategory(EightTags)]
    public void OpenTelemetry8() => _openTelemetry.Add(1, _tags.AsSpan());

    [Benchmark(Description = "counter.Add, 8 tags")]
    [BenchmarkCategory(EightTags)]
    public void Unbound8() => _counter.Add(1, _tags.AsSpan());
}
