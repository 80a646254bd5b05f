using OpenTelemetry.Proto.Collector.Metrics.V1;
using OpenTelemetry.Proto.Metrics.V1;
using ScalableMetrics.Exporter.OpenTelemetry.Otlp.Encoding;
using static ScalableMetrics.Exporter.Tests.OpenTelemetry.Otlp.OtlpDecoded;

namespace ScalableMetrics.Exporter.Tests.OpenTelemetry.Otlp.Encoding;

/// <summary>What OTLP shows across a series' removal: its last export, then a new series of its tags from zero, with a start of its own.</summary>
public class OtlpRemovalTests
{
    private static readonly DateTimeOffset s_start = DateTimeOffset.UtcNow.AddHours(1);
    private static readonly KeyValuePair<string, object?> s_a = new("tenant", "a");
    private static readonly KeyValuePair<string, object?> s_b = new("tenant", "b");

    [Fact]
    public void DeltasAcrossARemovalSumToWhatEachSeriesRecorded()
    {
        var registry = new MetricRegistry();
        PartitionedCounter counter = registry.CreateCounter("requests");
        PartitionedHistogram latency = registry.CreateHistogram("latency", null, null, [1, 10]);
        var time = new ManualTime(s_start);
        var collector = new OtlpMetricsCollector(() => [new OtlpScope("m", null, registry)], [], OtlpTemporality.Delta, timeProvider: time);
        var exports = new List<ExportMetricsServiceRequest>();
        void Export()
        {
            time.Now = time.Now.AddSeconds(1);
            OtlpExportBatch batch = collector.Collect();
            batch.Commit();
            exports.Add(Parse(batch));
        }

        counter.Add(3, s_a);
        counter.Add(2, s_b);
        latency.Record(0.5, s_a);
        latency.Record(5, s_b);
        Export();

        // Recorded before the removal's collection: in the series' last delta.
        counter.Add(4, s_a);
        latency.Record(0.5, s_a);
        Assert.True(counter.Remove(s_a));
        Assert.True(latency.Remove(s_a));
        Export();

        // b moved to a's position; a's tags again make a new series, whose first delta is all of it.
        counter.Add(10, s_a);
        counter.Add(1, s_b);
        latency.Record(50, s_a);
        latency.Record(5, s_b);
        Export();

        long Sum(string tenant) => exports.Sum(r => r.ResourceMetrics.SelectMany(m => m.ScopeMetrics).SelectMany(s => s.Metrics)
            .Where(m => m.Name == "requests").SelectMany(m => m.Sum.DataPoints).Where(p => Attributes(p.Attributes) == $"tenant=s:{tenant}").Sum(p => p.AsInt));
        Assert.Equal(3 + 4 + 10, Sum("a"));
        Assert.Equal(2 + 1, Sum("b"));
        Assert.Equal(10, Point(Metric(exports[2], "requests").Sum.DataPoints, "tenant=s:a").AsInt);

        HistogramDataPoint[] Points(string tenant) => [.. exports.SelectMany(r => r.ResourceMetrics.SelectMany(m => m.ScopeMetrics).SelectMany(s => s.Metrics))
            .Where(m => m.Name == "latency").SelectMany(m => m.Histogram.DataPoints).Where(p => Attributes(p.Attributes) == $"tenant=s:{tenant}")];
        Assert.Equal([1UL, 0UL, 1UL], Points("b").Select(p => p.BucketCounts[1]));
        Assert.Equal([1UL, 0UL, 1UL], Points("b").Select(p => p.Count));
        Assert.Equal([1UL, 1UL, 1UL], Points("a").Select(p => p.Count));
        Assert.Equal([0UL, 0UL, 1UL], Points("a")[2].BucketCounts);
        Assert.Equal([5.0, 0, 5.0], Points("b").Select(p => p.Sum));
    }

    [Fact]
    public void ACumulativeSeriesMadeAfterARemovalStartsFromZeroAtItsOwnStart()
    {
        var registry = new MetricRegistry();
        PartitionedCounter counter = registry.CreateCounter("requests");
        var time = new ManualTime(s_start);
        var collector = new OtlpMetricsCollector(() => [new OtlpScope("m", null, registry)], [], OtlpTemporality.Cumulative, timeProvider: time);
        ExportMetricsServiceRequest Export()
        {
            time.Now = time.Now.AddSeconds(1);
            OtlpExportBatch batch = collector.Collect();
            batch.Commit();
            return Parse(batch);
        }

        counter.Add(7, s_a);
        NumberDataPoint first = Point(Metric(Export(), "requests").Sum.DataPoints, "tenant=s:a");
        Assert.True(counter.Remove(s_a));
        Assert.Equal(7, Point(Metric(Export(), "requests").Sum.DataPoints, "tenant=s:a").AsInt);
        Assert.False(HasMetric(Export(), "requests") && Metric(Export(), "requests").Sum.DataPoints.Count > 0);

        DateTimeOffset beforeNew = DateTimeOffset.UtcNow;
        counter.Add(2, s_a);
        NumberDataPoint again = Point(Metric(Export(), "requests").Sum.DataPoints, "tenant=s:a");
        Assert.Equal(2, again.AsInt);
        Assert.True(again.StartTimeUnixNano > first.StartTimeUnixNano);
        Assert.True(again.StartTimeUnixNano >= ManualTime.UnixNano(beforeNew));
    }
}
