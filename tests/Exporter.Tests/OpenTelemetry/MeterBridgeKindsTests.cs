using System.Diagnostics.Metrics;
using OpenTelemetry;
using OpenTelemetry.Metrics;
using ScalableMetrics.Exporter.OpenTelemetry;

namespace ScalableMetrics.Exporter.Tests.OpenTelemetry;

/// <summary>
/// Every kind of instrument read back through a real OpenTelemetry <see cref="MeterProvider"/>
/// (what an OTLP exporter would be handed), with the limits <c>AddScalableMetrics</c> sets: each
/// kind arrives as its OpenTelemetry metric type with the registry's values; histograms do not
/// cross (open-telemetry/opentelemetry-dotnet#3963).
/// </summary>
public sealed class MeterBridgeKindsTests
{
    private static readonly KeyValuePair<string, object?> s_tag = new("k", "v");

    [Fact]
    public void EveryKindButTheHistogramArrivesAsItsOpentelemetryTypeWithItsValue()
    {
        var registry = new MetricRegistry();
        registry.CreateCounter("counter").Add(5, s_tag);
        PartitionedDoubleCounter doubleCounter = registry.CreateDoubleCounter("double.counter", "s");
        doubleCounter.Add(0.5, s_tag);
        doubleCounter.Add(0.25, s_tag);
        registry.CreateUpDownCounter("updown").Add(-4, s_tag);
        registry.CreateDoubleUpDownCounter("double.updown").Add(-0.5, s_tag);
        registry.CreateGauge("gauge").Set(-9, s_tag);
        registry.CreateDoubleGauge("double.gauge").Set(1.25, s_tag);
        registry.CreateObservableCounter("observed.counter", () => [new Measurement<long>(42, s_tag)]);
        registry.CreateObservableUpDownCounter("observed.updown", () => [new Measurement<double>(-1.5, s_tag)]);
        registry.CreateObservableGauge("observed.gauge", () => [new Measurement<long>(-3, s_tag)]);
        OperationData operation = registry.CreateOperationData("operation", boundaries: [0.1, 1]);
        operation.Record(TimeSpan.FromMilliseconds(250), s_tag);
        operation.Record(TimeSpan.FromMilliseconds(500), s_tag);
        registry.CreateHistogram("histogram", boundaries: [1]).Record(0.5, s_tag);

        IReadOnlyDictionary<string, CapturedMetric> metrics = ReadThroughOpenTelemetry(registry);

        Assert.Equal(
            ["counter", "double.counter", "double.gauge", "double.updown", "gauge", "observed.counter", "observed.gauge", "observed.updown", "operation", "operation.count", "updown"],
            metrics.Keys.Order(StringComparer.Ordinal));
        Assert.Equal(new CapturedMetric(MetricType.LongSum, 5), metrics["counter"]);
        Assert.Equal(new CapturedMetric(MetricType.DoubleSum, 0.75), metrics["double.counter"]);
        Assert.Equal(new CapturedMetric(MetricType.LongSumNonMonotonic, -4), metrics["updown"]);
        Assert.Equal(new CapturedMetric(MetricType.DoubleSumNonMonotonic, -0.5), metrics["double.updown"]);
        Assert.Equal(new CapturedMetric(MetricType.LongGauge, -9), metrics["gauge"]);
        Assert.Equal(new CapturedMetric(MetricType.DoubleGauge, 1.25), metrics["double.gauge"]);
        Assert.Equal(new CapturedMetric(MetricType.LongSum, 42), metrics["observed.counter"]);
        Assert.Equal(new CapturedMetric(MetricType.DoubleSumNonMonotonic, -1.5), metrics["observed.updown"]);
        Assert.Equal(new CapturedMetric(MetricType.LongGauge, -3), metrics["observed.gauge"]);

        // An operation with buckets crosses as its total time and count, as one without does.
        Assert.Equal(new CapturedMetric(MetricType.DoubleSum, 0.75), metrics["operation"]);
        Assert.Equal(new CapturedMetric(MetricType.LongSum, 2), metrics["operation.count"]);
    }

    [Fact]
    public void AThrowingCallbackFailsOnlyItsOwnInstrument()
    {
        var registry = new MetricRegistry();
        registry.CreateObservableGauge("throwing", Unplugged);
        registry.CreateObservableGauge("healthy", () => [new Measurement<long>(7, s_tag)]);
        registry.CreateUpDownCounter("updown").Add(-1, s_tag);

        IReadOnlyDictionary<string, CapturedMetric> metrics = ReadThroughOpenTelemetry(registry);

        Assert.Equal(new CapturedMetric(MetricType.LongGauge, 7), metrics["healthy"]);
        Assert.Equal(new CapturedMetric(MetricType.LongSumNonMonotonic, -1), metrics["updown"]);
        Assert.False(metrics.TryGetValue("throwing", out CapturedMetric? thrown) && thrown.Points > 0, "the throwing instrument reported a point");
    }

    [Fact]
    public void AnUpDownCounterPastTheSeriesLimitCrossesWithTheRegistrysOverflowSeriesOnly()
    {
        const int MaxSeries = 10;
        var registry = new MetricRegistry(new MetricRegistryOptions { MaxSeriesPerInstrument = MaxSeries });
        PartitionedUpDownCounter counter = registry.CreateUpDownCounter("wide");
        for (int i = 0; i < MaxSeries + 5; i++)
        {
            counter.Add(-1, new KeyValuePair<string, object?>("n", i));
        }

        List<CapturedPoint> points = ReadPointsThroughOpenTelemetry(registry)["wide"];

        Assert.Equal(MaxSeries + 1, points.Count);
        Assert.Equal(-5.0, Assert.Single(points, p => p.Tags.Contains(new("otel.metric.overflow", true))).Value);
        Assert.Equal(-(MaxSeries + 5.0), points.Sum(p => p.Value));
    }

    [Fact]
    public void ACounterSeriesRemovedAndMadeAgainNeverCrossesAsANegativeDelta()
    {
        var registry = new MetricRegistry();
        string meterName = "test.bridge.kinds." + Guid.NewGuid().ToString("N");
        var exporter = new CapturingExporter();
        using var bridge = new MeterBridge(registry, meterName);
        using MeterProvider provider = Sdk.CreateMeterProviderBuilder()
            .AddRegistryMeter(bridge)
            .AddReader(new BaseExportingMetricReader(exporter) { TemporalityPreference = MetricReaderTemporalityPreference.Delta })
            .Build();
        PartitionedCounter jobs = registry.CreateCounter("jobs.done");
        var deltas = new List<double>();

        // 10 done for a customer; the series is removed (its last export carries the 10), and the
        // customer's next 3 jobs make a new series of the same tags, which counts from zero
        // (series-lifecycle.md): 13 jobs in all, each delta the jobs done since the export before.
        jobs.Add(10, s_tag);
        Assert.True(provider.ForceFlush());
        deltas.AddRange(exporter.Metrics["jobs.done"].Select(p => p.Value));
        Assert.True(jobs.Remove(s_tag));
        Assert.True(provider.ForceFlush());
        deltas.AddRange(exporter.Metrics["jobs.done"].Select(p => p.Value));
        jobs.Add(3, s_tag);
        Assert.True(provider.ForceFlush());
        deltas.AddRange(exporter.Metrics["jobs.done"].Select(p => p.Value));

        Assert.All(deltas, delta => Assert.True(delta >= 0, $"a monotonic counter crossed as the delta {delta} (deltas: {string.Join(", ", deltas)})"));
        Assert.Equal(13, deltas.Sum());
    }

    [Fact]
    public void AnOperationsAndADoubleCountersSeriesRemovedAndMadeAgainCrossEachRecordOnce()
    {
        var registry = new MetricRegistry();
        string meterName = "test.bridge.kinds." + Guid.NewGuid().ToString("N");
        var exporter = new CapturingExporter();
        using var bridge = new MeterBridge(registry, meterName);
        using MeterProvider provider = Sdk.CreateMeterProviderBuilder()
            .AddRegistryMeter(bridge)
            .AddReader(new BaseExportingMetricReader(exporter) { TemporalityPreference = MetricReaderTemporalityPreference.Delta })
            .Build();
        OperationData jobs = registry.CreateOperationData("jobs.time");
        PartitionedDoubleCounter cost = registry.CreateDoubleCounter("jobs.cost");

        // The operation's count and total time, and the double counter, go on in their points as a
        // counter does; the collection that removes the operation's series is the last export of
        // both its instruments, each with what was recorded since the export before.
        jobs.Record(TimeSpan.FromMilliseconds(250), s_tag);
        cost.Add(1.5, s_tag);
        List<Dictionary<string, double>> deltas = [Flush(provider, exporter)];
        jobs.Record(TimeSpan.FromMilliseconds(250), s_tag);
        cost.Add(0.5, s_tag);
        Assert.True(jobs.Remove(s_tag));
        Assert.True(cost.Remove(s_tag));
        deltas.Add(Flush(provider, exporter));
        jobs.Record(TimeSpan.FromMilliseconds(500), s_tag);
        cost.Add(0.25, s_tag);
        deltas.Add(Flush(provider, exporter));

        Assert.Equal([1, 1, 1], deltas.Select(d => d.GetValueOrDefault("jobs.time.count")));
        Assert.Equal([0.25, 0.25, 0.5], deltas.Select(d => Math.Round(d.GetValueOrDefault("jobs.time"), 9)));
        Assert.Equal([1.5, 0.5, 0.25], deltas.Select(d => d.GetValueOrDefault("jobs.cost")));
    }

    [Fact]
    public void ACounterSeriesMadeAgainAfterAReadWithoutItsTagsCrossesAsANewPoint()
    {
        var registry = new MetricRegistry();
        string meterName = "test.bridge.kinds." + Guid.NewGuid().ToString("N");
        var exporter = new CapturingExporter();
        using var bridge = new MeterBridge(registry, meterName);
        using MeterProvider provider = Sdk.CreateMeterProviderBuilder()
            .AddRegistryMeter(bridge)
            .AddReader(new BaseExportingMetricReader(exporter) { TemporalityPreference = MetricReaderTemporalityPreference.Delta })
            .Build();
        PartitionedCounter jobs = registry.CreateCounter("jobs.done");

        // A collection that finds no series of the tags has OpenTelemetry reclaim their delta point:
        // the series made after it is a new point, whose first delta is its own total alone.
        jobs.Add(10, s_tag);
        List<Dictionary<string, double>> deltas = [Flush(provider, exporter)];
        Assert.True(jobs.Remove(s_tag));
        deltas.Add(Flush(provider, exporter));
        deltas.Add(Flush(provider, exporter));
        jobs.Add(3, s_tag);
        deltas.Add(Flush(provider, exporter));

        Assert.Equal([10, 0, 0, 3], deltas.Select(d => d.GetValueOrDefault("jobs.done")));
    }

    private static IEnumerable<Measurement<double>> Unplugged() => throw new InvalidDataException("sensor unplugged");

    // One collection's points, summed per metric; a metric without points is left out.
    private static Dictionary<string, double> Flush(MeterProvider provider, CapturingExporter exporter)
    {
        exporter.Metrics.Clear();
        Assert.True(provider.ForceFlush());
        return exporter.Metrics.Where(m => m.Value.Count > 0).ToDictionary(m => m.Key, m => m.Value.Sum(p => p.Value));
    }

    private static Dictionary<string, CapturedMetric> ReadThroughOpenTelemetry(MetricRegistry registry) =>
        ReadPointsThroughOpenTelemetry(registry)
            .ToDictionary(m => m.Key, m => new CapturedMetric(m.Value.Count == 0 ? default : m.Value[0].Type, m.Value.Sum(p => p.Value), m.Value.Count));

    private static Dictionary<string, List<CapturedPoint>> ReadPointsThroughOpenTelemetry(MetricRegistry registry)
    {
        string meterName = "test.bridge.kinds." + Guid.NewGuid().ToString("N");
        var exporter = new CapturingExporter();
        using var bridge = new MeterBridge(registry, meterName);
        using MeterProvider provider = Sdk.CreateMeterProviderBuilder()
            .AddRegistryMeter(bridge)
            .AddReader(new BaseExportingMetricReader(exporter))
            .Build();

        Assert.True(provider.ForceFlush());
        return exporter.Metrics;
    }

    private sealed record CapturedMetric(MetricType Type, double Value, int Points = 1);

    private sealed record CapturedPoint(MetricType Type, double Value, KeyValuePair<string, object?>[] Tags);

    // The values a reader hands its exporter, copied during the export (OpenTelemetry reuses its points).
    private sealed class CapturingExporter : BaseExporter<Metric>
    {
        public Dictionary<string, List<CapturedPoint>> Metrics { get; } = [];

        public override ExportResult Export(in Batch<Metric> batch)
        {
            foreach (Metric metric in batch)
            {
                List<CapturedPoint> points = Metrics[metric.Name] = [];
                foreach (ref readonly MetricPoint point in metric.GetMetricPoints())
                {
                    var tags = new List<KeyValuePair<string, object?>>();
                    foreach (KeyValuePair<string, object?> tag in point.Tags)
                    {
                        tags.Add(tag);
                    }

                    points.Add(new CapturedPoint(metric.MetricType, ValueOf(metric.MetricType, point), [.. tags]));
                }
            }

            return ExportResult.Success;
        }

        private static double ValueOf(MetricType type, in MetricPoint point) => type switch
        {
            MetricType.LongSum or MetricType.LongSumNonMonotonic => point.GetSumLong(),
            MetricType.DoubleSum or MetricType.DoubleSumNonMonotonic => point.GetSumDouble(),
            MetricType.LongGauge => point.GetGaugeLastValueLong(),
            MetricType.DoubleGauge => point.GetGaugeLastValueDouble(),
            _ => throw new InvalidOperationException($"Unexpected metric type {type}."),
        };
    }
}
