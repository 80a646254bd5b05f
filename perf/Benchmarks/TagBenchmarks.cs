// Results (2 logical cores): perf/results/README.md, section "Drop-in (issue 11)" (the counter at
// 0, 1, 3 and 8 tags, and the listened instruments, then in a class of their own). Run:
//   dotnet run -c Release --project perf/Benchmarks -- --filter '*' --anyCategories tags --job short
// or one instrument: --filter '*TagBenchmarks.Counter*' (or '*TagBenchmarks.Histogram*') --job short.
// The bar (issues 11 and 19): 0 bytes allocated per add or record once its series exists;
// OpenTelemetry's own benchmarks give about 11 ns at 0 tags and 43 ns at 1 for its Counter<long>.Add.

using System.Diagnostics.Metrics;
using BenchmarkDotNet.Attributes;
using BenchmarkDotNet.Configs;
using Microsoft.Extensions.Logging.Abstractions;
using OpenTelemetry;
using OpenTelemetry.Metrics;
using ScalableMetrics.Exporter.Listening;
using ScalableMetrics.Scaling.Implementations;

namespace ScalableMetrics.Benchmarks;

/// <summary>
/// What finding a series by its tags costs, at 0, 1, 3, 5 and 8 tags, for a counter's add and a
/// histogram's record: ours unbound (<see cref="CounterInstrument{TValue, TSeries}.Add(TValue, ReadOnlySpan{KeyValuePair{string, object}})"/>,
/// <see cref="PartitionedHistogram.Record(double, ReadOnlySpan{KeyValuePair{string, object}})"/>),
/// ours through <c>AddMeter</c> (a plain <see cref="Counter{T}"/> or <see cref="Histogram{T}"/>
/// taken by ScalableMetrics' <see cref="MeterListener"/> path), and the same plain instruments of
/// another meter with an OpenTelemetry <see cref="MeterProvider"/> listening (the baseline of each
/// category); and, at 3 tags, an add to a series bound once, what the lookup costs over.
/// </summary>
/// <remarks>
/// <para>The tags are made once (<see cref="RequestTags.All"/>: the first 5 are ASP.NET Core's
/// request tags), so the caller boxes nothing and every call passes the same string instances,
/// as services do; every series (and OpenTelemetry's metric point) exists before measuring: a
/// call measures a lookup, not a creation. The histograms record the harness's cycle of 16 values,
/// one in each bucket of the default boundaries (<see cref="HistogramValues"/>).</para>
/// <para>The class is in both the <c>tags</c> and the <c>listener</c> categories: it took in the
/// listened instruments' benchmarks, which had a class of their own.</para>
/// </remarks>
[MemoryDiagnoser]
[BenchmarkCategory("tags", "listener")]
[CategoriesColumn]
[GroupBenchmarksBy(BenchmarkLogicalGroupRule.ByCategory)]
public class TagBenchmarks
{
    private const string Counter0 = "counter, 0 tags";
    private const string Counter1 = "counter, 1 tag";
    private const string Counter3 = "counter, 3 tags";
    private const string Counter5 = "counter, 5 tags";
    private const string Counter8 = "counter, 8 tags";
    private const string Histogram0 = "histogram, 0 tags";
    private const string Histogram1 = "histogram, 1 tag";
    private const string Histogram3 = "histogram, 3 tags";
    private const string Histogram5 = "histogram, 5 tags";
    private const string Histogram8 = "histogram, 8 tags";

    private readonly KeyValuePair<string, object?>[] _tags = RequestTags.All;
    private readonly double[] _cycle = HistogramValues.Cycle;
    private int _next;

    private PartitionedCounter _counter = null!;
    private PartitionedHistogram _histogram = null!;
    private CounterSeries _bound = null!;
    private Meter _listenedMeter = null!;
    private Meter _openTelemetryMeter = null!;
    private MeterListenerHost _host = null!;
    private MeterProvider _meterProvider = null!;
    private Counter<long> _listenedCounter = null!;
    private Counter<long> _openTelemetryCounter = null!;
    private Histogram<double> _listenedHistogram = null!;
    private Histogram<double> _openTelemetryHistogram = null!;

    [GlobalSetup]
    public void Setup()
    {
        var registry = new MetricRegistry();
        _counter = registry.CreateCounter("bench.requests", "{request}");
        _histogram = registry.CreateHistogram("bench.duration", "ms");
        _bound = _counter.Bind(_tags.AsSpan(0, 3));
        _listenedMeter = new Meter("ScalableMetrics.Benchmarks.Tags.Listened");
        _openTelemetryMeter = new Meter("ScalableMetrics.Benchmarks.Tags.OpenTelemetry");
        _host = new MeterListenerHost([_listenedMeter.Name], "ScalableMetrics", () => new MetricRegistry(), NullLogger.Instance);
        _host.Start();
        _meterProvider = Sdk.CreateMeterProviderBuilder()
            .AddMeter(_openTelemetryMeter.Name)
            .AddReader(new BaseExportingMetricReader(new LongSumExporter("bench.requests")))
            .Build();
        _listenedCounter = _listenedMeter.CreateCounter<long>("bench.requests", "{request}");
        _openTelemetryCounter = _openTelemetryMeter.CreateCounter<long>("bench.requests", "{request}");
        _listenedHistogram = _listenedMeter.CreateHistogram<double>("bench.duration", "ms");
        _openTelemetryHistogram = _openTelemetryMeter.CreateHistogram<double>("bench.duration", "ms");

        // Create every series (and OpenTelemetry's metric points) before measuring.
        foreach (int count in (int[])[0, 1, 3, 5, 8])
        {
            ReadOnlySpan<KeyValuePair<string, object?>> tags = _tags.AsSpan(0, count);
            _counter.Add(1, tags);
            _listenedCounter.Add(1, tags);
            _openTelemetryCounter.Add(1, tags);
            _histogram.Record(1.0, tags);
            _listenedHistogram.Record(1.0, tags);
            _openTelemetryHistogram.Record(1.0, tags);
        }
    }

    [GlobalCleanup]
    public void Cleanup()
    {
        _meterProvider.Dispose();
        _host.Dispose();
        _listenedMeter.Dispose();
        _openTelemetryMeter.Dispose();
    }

    [Benchmark(Baseline = true, Description = "opentelemetry Counter<long>.Add, 0 tags")]
    [BenchmarkCategory(Counter0)]
    public void CounterOpenTelemetry0() => _openTelemetryCounter.Add(1);

    [Benchmark(Description = "counter.Add, 0 tags")]
    [BenchmarkCategory(Counter0)]
    public void CounterUnbound0() => _counter.Add(1);

    [Benchmark(Description = "AddMeter Counter<long>.Add, 0 tags")]
    [BenchmarkCategory(Counter0)]
    public void CounterAddMeter0() => _listenedCounter.Add(1);

    [Benchmark(Baseline = true, Description = "opentelemetry Counter<long>.Add, 1 tag")]
    [BenchmarkCategory(Counter1)]
    public void CounterOpenTelemetry1() => _openTelemetryCounter.Add(1, _tags[0]);

    [Benchmark(Description = "counter.Add, 1 tag")]
    [BenchmarkCategory(Counter1)]
    public void CounterUnbound1() => _counter.Add(1, _tags[0]);

    [Benchmark(Description = "AddMeter Counter<long>.Add, 1 tag")]
    [BenchmarkCategory(Counter1)]
    public void CounterAddMeter1() => _listenedCounter.Add(1, _tags[0]);

    [Benchmark(Baseline = true, Description = "opentelemetry Counter<long>.Add, 3 tags")]
    [BenchmarkCategory(Counter3)]
    public void CounterOpenTelemetry3() => _openTelemetryCounter.Add(1, _tags[0], _tags[1], _tags[2]);

    [Benchmark(Description = "counter.Add, 3 tags")]
    [BenchmarkCategory(Counter3)]
    public void CounterUnbound3() => _counter.Add(1, _tags[0], _tags[1], _tags[2]);

    [Benchmark(Description = "AddMeter Counter<long>.Add, 3 tags")]
    [BenchmarkCategory(Counter3)]
    public void CounterAddMeter3() => _listenedCounter.Add(1, _tags[0], _tags[1], _tags[2]);

    [Benchmark(Description = "bound series (3 tags)")]
    [BenchmarkCategory(Counter3)]
    public void CounterBound3() => _bound.Add(1);

    [Benchmark(Baseline = true, Description = "opentelemetry Counter<long>.Add, 5 tags")]
    [BenchmarkCategory(Counter5)]
    public void CounterOpenTelemetry5() => _openTelemetryCounter.Add(1, _tags.AsSpan(0, 5));

    [Benchmark(Description = "counter.Add, 5 tags")]
    [BenchmarkCategory(Counter5)]
    public void CounterUnbound5() => _counter.Add(1, _tags.AsSpan(0, 5));

    [Benchmark(Description = "AddMeter Counter<long>.Add, 5 tags")]
    [BenchmarkCategory(Counter5)]
    public void CounterAddMeter5() => _listenedCounter.Add(1, _tags.AsSpan(0, 5));

    [Benchmark(Baseline = true, Description = "opentelemetry Counter<long>.Add, 8 tags")]
    [BenchmarkCategory(Counter8)]
    public void CounterOpenTelemetry8() => _openTelemetryCounter.Add(1, _tags.AsSpan());

    [Benchmark(Description = "counter.Add, 8 tags")]
    [BenchmarkCategory(Counter8)]
    public void CounterUnbound8() => _counter.Add(1, _tags.AsSpan());

    [Benchmark(Description = "AddMeter Counter<long>.Add, 8 tags")]
    [BenchmarkCategory(Counter8)]
    public void CounterAddMeter8() => _listenedCounter.Add(1, _tags.AsSpan());

    [Benchmark(Baseline = true, Description = "opentelemetry Histogram<double>.Record, 0 tags")]
    [BenchmarkCategory(Histogram0)]
    public void HistogramOpenTelemetry0() => _openTelemetryHistogram.Record(NextValue());

    [Benchmark(Description = "histogram.Record, 0 tags")]
    [BenchmarkCategory(Histogram0)]
    public void HistogramUnbound0() => _histogram.Record(NextValue());

    [Benchmark(Description = "AddMeter Histogram<double>.Record, 0 tags")]
    [BenchmarkCategory(Histogram0)]
    public void HistogramAddMeter0() => _listenedHistogram.Record(NextValue());

    [Benchmark(Baseline = true, Description = "opentelemetry Histogram<double>.Record, 1 tag")]
    [BenchmarkCategory(Histogram1)]
    public void HistogramOpenTelemetry1() => _openTelemetryHistogram.Record(NextValue(), _tags[0]);

    [Benchmark(Description = "histogram.Record, 1 tag")]
    [BenchmarkCategory(Histogram1)]
    public void HistogramUnbound1() => _histogram.Record(NextValue(), _tags[0]);

    [Benchmark(Description = "AddMeter Histogram<double>.Record, 1 tag")]
    [BenchmarkCategory(Histogram1)]
    public void HistogramAddMeter1() => _listenedHistogram.Record(NextValue(), _tags[0]);

    [Benchmark(Baseline = true, Description = "opentelemetry Histogram<double>.Record, 3 tags")]
    [BenchmarkCategory(Histogram3)]
    public void HistogramOpenTelemetry3() => _openTelemetryHistogram.Record(NextValue(), _tags[0], _tags[1], _tags[2]);

    [Benchmark(Description = "histogram.Record, 3 tags")]
    [BenchmarkCategory(Histogram3)]
    public void HistogramUnbound3() => _histogram.Record(NextValue(), _tags[0], _tags[1], _tags[2]);

    [Benchmark(Description = "AddMeter Histogram<double>.Record, 3 tags")]
    [BenchmarkCategory(Histogram3)]
    public void HistogramAddMeter3() => _listenedHistogram.Record(NextValue(), _tags[0], _tags[1], _tags[2]);

    [Benchmark(Baseline = true, Description = "opentelemetry Histogram<double>.Record, 5 tags")]
    [BenchmarkCategory(Histogram5)]
    public void HistogramOpenTelemetry5() => _openTelemetryHistogram.Record(NextValue(), _tags.AsSpan(0, 5));

    [Benchmark(Description = "histogram.Record, 5 tags")]
    [BenchmarkCategory(Histogram5)]
    public void HistogramUnbound5() => _histogram.Record(NextValue(), _tags.AsSpan(0, 5));

    [Benchmark(Description = "AddMeter Histogram<double>.Record, 5 tags")]
    [BenchmarkCategory(Histogram5)]
    public void HistogramAddMeter5() => _listenedHistogram.Record(NextValue(), _tags.AsSpan(0, 5));

    [Benchmark(Baseline = true, Description = "opentelemetry Histogram<double>.Record, 8 tags")]
    [BenchmarkCategory(Histogram8)]
    public void HistogramOpenTelemetry8() => _openTelemetryHistogram.Record(NextValue(), _tags.AsSpan());

    [Benchmark(Description = "histogram.Record, 8 tags")]
    [BenchmarkCategory(Histogram8)]
    public void HistogramUnbound8() => _histogram.Record(NextValue(), _tags.AsSpan());

    [Benchmark(Description = "AddMeter Histogram<double>.Record, 8 tags")]
    [BenchmarkCategory(Histogram8)]
    public void HistogramAddMeter8() => _listenedHistogram.Record(NextValue(), _tags.AsSpan());

    private double NextValue() => HistogramValues.At(_cycle, _next++);
}
