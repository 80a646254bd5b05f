// Results (2 logical cores): perf/results/README.md, section "Instruments (issue 10)". Run:
//   dotnet run -c Release --project perf/Benchmarks -- --filter '*' --anyCategories histogram-record --job short
// The bar: 0 bytes allocated per record, bound or unbound with an existing series.

using System.Diagnostics.Metrics;
using BenchmarkDotNet.Attributes;
using BenchmarkDotNet.Configs;
using OpenTelemetry;
using OpenTelemetry.Metrics;
using ScalableMetrics.Scaling.Implementations;

namespace ScalableMetrics.Benchmarks;

/// <summary>
/// One histogram record on one thread: our <see cref="PartitionedHistogram"/> bound, and unbound
/// with 1 and 3 tags (its series looked up on every call), each against OpenTelemetry's
/// <see cref="Histogram{T}.Record(T)"/> with the same tags and a <see cref="MeterProvider"/>
/// listening (the baseline of its category). Both record the harness's cycle of values, one in each
/// of the 16 buckets of the default boundaries (<see cref="HistogramValues"/>), so both do the same
/// bucket lookups. prometheus-net 8.2.1 is in each group too, with the same boundaries: its child
/// taken once (bound), and <c>WithLabels(...)</c> with the tags' values as strings on every call.
/// </summary>
/// <remarks>The tags are made once, so the caller boxes nothing, and every series exists before
/// measuring: an unbound record measures a lookup, not a creation.</remarks>
[MemoryDiagnoser]
[BenchmarkCategory("histogram-record")]
[CategoriesColumn]
[GroupBenchmarksBy(BenchmarkLogicalGroupRule.ByCategory)]
public class HistogramRecordBenchmarks
{
    private const string Bound = "bound";
    private const string OneTag = "1 tag";
    private const string ThreeTags = "3 tags";

    private readonly KeyValuePair<string, object?> _method = RequestTags.All[0];
    private readonly KeyValuePair<string, object?> _status = RequestTags.All[1];
    private readonly KeyValuePair<string, object?> _route = RequestTags.All[2];
    private readonly double[] _cycle = HistogramValues.Cycle;
    private int _next;
    private PartitionedHistogram _histogram = null!;
    private HistogramSeries _bound = null!;
    private Meter _meter = null!;
    private MeterProvider _meterProvider = null!;
    private Histogram<double> _openTelemetry = null!;
    private Prometheus.Histogram.Child _prometheusNetBound = null!;
    private Prometheus.Histogram _prometheusNetOneLabel = null!;
    private Prometheus.Histogram _prometheusNetThreeLabels = null!;
    private string _methodText = null!;
    private string _statusText = null!;
    private string _routeText = null!;

    [GlobalSetup]
    public void Setup()
    {
        _histogram = new MetricRegistry().CreateHistogram("bench.duration", "ms");
        _bound = _histogram.Bind(_method, _status, _route);
        _meter = new Meter("ScalableMetrics.Benchmarks.Histogram");
        _openTelemetry = _meter.CreateHistogram<double>("bench.duration", "ms");
        _meterProvider = Sdk.CreateMeterProviderBuilder()
            .AddMeter(_meter.Name)
            .AddReader(new BaseExportingMetricReader(new HistogramExporter("bench.duration")))
            .Build();

        // prometheus-net's label values are strings: the same tags, as text made once.
        _methodText = (string)_method.Value!;
        _statusText = _status.Value!.ToString()!;
        _routeText = (string)_route.Value!;
        Prometheus.CollectorRegistry prometheusRegistry = Prometheus.Metrics.NewCustomRegistry();
        _prometheusNetOneLabel = PrometheusNetHistogram.NewHistogram(prometheusRegistry, "bench_duration_one_label", "http_request_method");
        _prometheusNetThreeLabels = PrometheusNetHistogram.NewHistogram(prometheusRegistry, "bench_duration_three_labels", "http_request_method", "http_response_status_code", "http_route");
        _prometheusNetBound = _prometheusNetThreeLabels.WithLabels(_methodText, _statusText, _routeText);

        // Create every series (and OpenTelemetry's metric points) before measuring.
        _histogram.Record(1.0, _method);
        _histogram.Record(1.0, _method, _status, _route);
        _openTelemetry.Record(1.0);
        _openTelemetry.Record(1.0, _method);
        _openTelemetry.Record(1.0, _method, _status, _route);
        _prometheusNetOneLabel.WithLabels(_methodText).Observe(1.0);
    }

    [GlobalCleanup]
    public void Cleanup()
    {
        _meterProvider.Dispose();
        _meter.Dispose();
    }

    [Benchmark(Baseline = true, Description = "opentelemetry Histogram<double>.Record, 0 tags")]
    [BenchmarkCategory(Bound)]
    public void OpenTelemetryNoTags() => _openTelemetry.Record(NextValue());

    [Benchmark(Description = "bound series Record(double)")]
    [BenchmarkCategory(Bound)]
    public void BoundRecord() => _bound.Record(NextValue());

    [Benchmark(Description = "prometheus-net child (taken once) Observe")]
    [BenchmarkCategory(Bound)]
    public void PrometheusNetBound() => _prometheusNetBound.Observe(NextValue());

    [Benchmark(Baseline = true, Description = "opentelemetry Histogram<double>.Record, 1 tag")]
    [BenchmarkCategory(OneTag)]
    public void OpenTelemetryOneTag() => _openTelemetry.Record(NextValue(), _method);

    [Benchmark(Description = "histogram.Record(double, 1 tag)")]
    [BenchmarkCategory(OneTag)]
    public void UnboundOneTag() => _histogram.Record(NextValue(), _method);

    [Benchmark(Description = "prometheus-net WithLabels(1 string).Observe")]
    [BenchmarkCategory(OneTag)]
    public void PrometheusNetOneLabel() => _prometheusNetOneLabel.WithLabels(_methodText).Observe(NextValue());

    [Benchmark(Baseline = true, Description = "opentelemetry Histogram<double>.Record, 3 tags")]
    [BenchmarkCategory(ThreeTags)]
    public void OpenTelemetryThreeTags() => _openTelemetry.Record(NextValue(), _method, _status, _route);

    [Benchmark(Description = "histogram.Record(double, 3 tags)")]
    [BenchmarkCategory(ThreeTags)]
    public void UnboundThreeTags() => _histogram.Record(NextValue(), _method, _status, _route);

    [Benchmark(Description = "prometheus-net WithLabels(3 strings).Observe")]
    [BenchmarkCategory(ThreeTags)]
    public void PrometheusNetThreeLabels() => _prometheusNetThreeLabels.WithLabels(_methodText, _statusText, _routeText).Observe(NextValue());

    private double NextValue() => HistogramValues.At(_cycle, _next++);
}
