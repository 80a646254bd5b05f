using System.Diagnostics;
using OpenTelemetry.Proto.Collector.Metrics.V1;
using OpenTelemetry.Proto.Metrics.V1;
using ScalableMetrics.Exporter.OpenTelemetry.Otlp.Encoding;
using static ScalableMetrics.Exporter.Tests.OpenTelemetry.Otlp.OtlpDecoded;
using ProtoExemplar = OpenTelemetry.Proto.Metrics.V1.Exemplar;

namespace ScalableMetrics.Exporter.Tests.OpenTelemetry.Otlp.Encoding;

/// <summary>
/// An exponential histogram's exemplars in OTLP, decoded with opentelemetry-proto's classes: the
/// <c>ExponentialHistogramDataPoint</c>'s <c>exemplars</c>, each with its time, value, trace and
/// span as a classic histogram's carry them; a delta point only those taken since its start.
/// </summary>
public class OtlpExponentialExemplarTests
{
    [Fact]
    public void ACumulativePointCarriesTheSampledRecordsWithTheirTraceAndSpan()
    {
        var registry = new MetricRegistry(new MetricRegistryOptions { ExemplarFilter = ExemplarFilter.TraceBased });
        PartitionedExponentialHistogram histogram = registry.CreateExponentialHistogram("latency", "s");
        histogram.Record(0.1);
        using var activity = new Activity("test");
        activity.SetIdFormat(ActivityIdFormat.W3C);
        activity.ActivityTraceFlags = ActivityTraceFlags.Recorded;
        DateTimeOffset before = DateTimeOffset.UtcNow;
        using (activity.Start())
        {
            histogram.Record(0.7);
            histogram.Record(3.0);
        }

        DateTimeOffset after = DateTimeOffset.UtcNow;
        var collector = new OtlpMetricsCollector(() => [new OtlpScope("m", null, registry)], [], OtlpTemporality.Cumulative);

        ExponentialHistogramDataPoint point = Assert.Single(Metric(Parse(collector.Collect()), "latency").ExponentialHistogram.DataPoints);

        Assert.Equal(3UL, point.Count);
        Assert.Equal([0.7, 3.0], point.Exemplars.Select(e => e.AsDouble).Order());
        foreach (ProtoExemplar exemplar in point.Exemplars)
        {
            Assert.Equal(ProtoExemplar.ValueOneofCase.AsDouble, exemplar.ValueCase);
            Assert.Equal(activity.TraceId.ToHexString(), Convert.ToHexStringLower(exemplar.TraceId.Span));
            Assert.Equal(activity.SpanId.ToHexString(), Convert.ToHexStringLower(exemplar.SpanId.Span));
            Assert.InRange(exemplar.TimeUnixNano, ManualTime.UnixNano(before), ManualTime.UnixNano(after));
            Assert.Empty(exemplar.FilteredAttributes);
        }
    }

    [Fact]
    public void WithoutAFilterThePointHasNoExemplar()
    {
        var registry = new MetricRegistry();
        registry.CreateExponentialHistogram("latency", "s").Record(0.7);
        var collector = new OtlpMetricsCollector(() => [new OtlpScope("m", null, registry)], [], OtlpTemporality.Cumulative);

        ExponentialHistogramDataPoint point = Assert.Single(Metric(Parse(collector.Collect()), "latency").ExponentialHistogram.DataPoints);

        Assert.Equal(1UL, point.Count);
        Assert.Empty(point.Exemplars);
    }

    [Fact]
    public void ADeltaPointCarriesOnlyTheExemplarsTakenSinceItsStart()
    {
        var registry = new MetricRegistry(new MetricRegistryOptions { ExemplarFilter = ExemplarFilter.AlwaysOn });
        PartitionedExponentialHistogram histogram = registry.CreateExponentialHistogram("latency", "s");
        var collector = new OtlpMetricsCollector(() => [new OtlpScope("m", null, registry)], [], OtlpTemporality.Delta);
        histogram.Record(0.5);
        OtlpExportBatch first = collector.Collect();
        ExponentialHistogramDataPoint firstPoint = Assert.Single(Metric(Parse(first), "latency").ExponentialHistogram.DataPoints);
        first.Commit();
        ExportMetricsServiceRequest quiet = Parse(collector.Collect());
        histogram.Record(2.0);
        ExportMetricsServiceRequest third = Parse(collector.Collect());

        Assert.Equal(0.5, Assert.Single(firstPoint.Exemplars).AsDouble);

        // Nothing recorded since the first: no point at all (metrics/sdk.md, "MetricReader").
        Assert.False(HasMetric(quiet, "latency"));
        ExponentialHistogramDataPoint thirdPoint = Assert.Single(Metric(third, "latency").ExponentialHistogram.DataPoints);
        Assert.Equal(1UL, thirdPoint.Count);
        Assert.Equal(2.0, Assert.Single(thirdPoint.Exemplars).AsDouble);
    }
}
