// Results (2 logical cores): perf/results/README.md, section "Drop-in (issue 11)". Run:
//   dotnet run -c Release --project perf/Benchmarks -- --filter '*' --anyCategories listener --job short
// The bar (issue 11): 0 bytes allocated per measurement once its series exists.

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
/// The drop-in path: a plain <see cref="Counter{T}"/> and <see cref="Histogram{T}"/> of
/// System.Diagnostics.Metrics, taken by ScalableMetrics' <see cref="MeterListener"/> path (what
/// <c>AddMeter</c> sets up), with 0, 1, 3 and 8 tags (the histogram: 0, 1, 3), against the same
/// instruments of another meter with an OpenTelemetry <see cref="MeterProvider"/> listening (the
/// baseline of each category).
/// </summary>
/// <remarks>Every series (and OpenTelemetry's metric point) exists before measuring, and the tags
/// are made once, so a measurement measures the listener's dispatch, the tag lookup and the add.</remarks>
[MemoryDiagnoser]
[BenchmarkCategory("listener")]
[CategoriesColumn]
[GroupBenchmarksBy(BenchmarkLogicalGroupRule.ByCategory)]
public class ListenerBenchmarks
{
    private readonly KeyValuePair<string, object?>[] _tags = RequestTags.All;

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
        _listenedMeter = new Meter("ScalableMetrics.Benchmarks.Listened");
        _openTelemetryMeter = new Meter("ScalableMetrics.Benchmarks.OpenTelemetry");
        _host = new MeterListenerHost([_listenedMeter.Name], "ScalableMetrics", () => new MetricRegistry(), NullLogger.Instance);
        _host.Start();
        _meterProvider = Sdk.CreateMeterProviderBuilder()
            .AddMeter(_openTelemetryMeter.Name)
            .AddReader(new BaseExportingMetricReader(new LongSumExporter("bench.requests")))
            .Build();
        _listenedCounter = _listenedMeter.CreateCounter<long>("bench.requests", "{request}");
        _openTelemetryCounter = _openTelemetryMeter.CreateCounter<long>("bench.requests", "{request}");
        _listenedHistogram = _listenedMeter.CreateHistogram<double>("bench.duration", "s");
        _openTelemetryHistogram = _openTelemetryMeter.CreateHistogram<double>("bench.duration", "s");
        foreach (int count in (int[])[0, 1, 3, 8])
        {
            _listenedCounter.Add(1, _tags.AsSpan(0, count));
            _openTelemetryCounter.Add(1, _tags.AsSpan(0, count));
            _listenedHistogram.Record(0.042, _tags.AsSpan(0, count));
            _openTelemetryHistogram.Record(0.042, _tags.AsSpan(0, count));
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
    [BenchmarkCategory("counter, 0 tags")]
    public void OpenTelemetryCounter0() => _openTelemetryCounter.Add(1);

    [Benchmark(Description = "listened Counter<long>.Add, 0 tags")]
    [BenchmarkCategory("counter, 0 tags")]
    public void ListenedCounter0() => _listenedCounter.Add(1);

    [Benchmark(Baseline = true, Description = "opentelemetry Counter<long>.Add, 1 tag")]
    [BenchmarkCategory("counter, 1 tag")]
    public void OpenTelemetryCounter1() => _openTelemetryCounter.Add(1, _tags[0]);

    [Benchmark(Description = "listened Counter<long>.Add, 1 tag")]
    [BenchmarkCategory("counter, 1 tag")]
    public void ListenedCounter1() => _listenedCounter.Add(1, _tags[0]);

    [Benchmark(Baseline = true, Description = "opentelemetry Counter<long>.Add, 3 tags")]
    [BenchmarkCategory("counter, 3 tags")]
    public void OpenTelemetryCounter3() => _openTelemetryCounter.Add(1, _tags[0], _tags[1], _tags[2]);

    [Benchmark(Description = "listened Counter<long>.Add, 3 tags")]
    [BenchmarkCategory("counter, 3 tags")]
    public void ListenedCounter3() => _listenedCounter.Add(1, _tags[0], _tags[1], _tags[2]);

    [Benchmark(Baseline = true, Description = "opentelemetry Counter<long>.Add, 8 tags")]
    [BenchmarkCategory("counter, 8 tags")]
    public void OpenTelemetryCounter8() => _openTelemetryCounter.Add(1, _tags.AsSpan());

    [Benchmark(Description = "listened Counter<long>.Add, 8 tags")]
    [BenchmarkCategory("counter, 8 tags")]
    public void ListenedCounter8() => _listenedCounter.Add(1, _tags.AsSpan());

    [Benchmark(Baseline = true, Description = "opentelemetry Histogram<double>.Record, 0 tags")]
    [BenchmarkCategory("histogram, 0 tags")]
    public void OpenTelemetryHistogram0() => _openTelemetryHistogram.Record(0.042);

    [Benchmark(Description = "listened Histogram<double>.Record, 0 tags")]
    [BenchmarkCategory("histogram, 0 tags")]
    public void ListenedHistogram0() => _listenedHistogram.Record(0.042);

    [Benchmark(Baseline = true, Description = "opentelemetry Histogram<double>.Record, 1 tag")]
    [BenchmarkCategory("histogram, 1 tag")]
    public void OpenTelemetryHistogram1() => _openTelemetryHistogram.Record(0.042, _tags[0]);

    [Benchmark(Description = "listened Histogram<double>.Record, 1 tag")]
    [BenchmarkCategory("histogram, 1 tag")]
    public void ListenedHistogram1() => _listenedHistogram.Record(0.042, _tags[0]);

    [Benchmark(Baseline = true, Description = "opentelemetry Histogram<double>.Record, 3 tags")]
    [BenchmarkCategory("histogram, 3 tags")]
    public void OpenTelemetryHistogram3() => _openTelemetryHistogram.Record(0.042, _tags[0], _tags[1], _tags[2]);

    [Benchmark(Description = "listened Histogram<double>.Record, 3 tags")]
    [BenchmarkCategory("histogram, 3 tags")]
    public void ListenedHistogram3() => _listenedHistogram.Record(0.042, _tags[0], _tags[1], _tags[2]);
}
