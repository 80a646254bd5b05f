using System.Diagnostics.Metrics;
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

        // b, nothing recorded before the second export, has no point in it (metrics/sdk.md, "MetricReader").
        Assert.Equal([1UL, 1UL], Points("b").Select(p => p.BucketCounts[1]));
        Assert.Equal([1UL, 1UL], Points("b").Select(p => p.Count));
        Assert.Equal([1UL, 1UL, 1UL], Points("a").Select(p => p.Count));
        Assert.Equal([0UL, 0UL, 1UL], Points("a")[2].BucketCounts);
        Assert.Equal([5.0, 5.0], Points("b").Select(p => p.Sum));
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

    // docs/otlp.md: "a delta export whose retries ran out of attempts or time has its changes go
    // with the next export"; docs/series-lifecycle.md: a removed series' last export carries "what
    // was recorded since the export before". The collection that removes a series is its last: when
    // that export is not accepted, the next one must still carry the series' change.
    [Fact]
    public void ADeltaOfARemovedSeriesWhoseLastExportFailedGoesWithTheNextExport()
    {
        var registry = new MetricRegistry();
        PartitionedCounter counter = registry.CreateCounter("requests");
        var time = new ManualTime(s_start);
        var collector = new OtlpMetricsCollector(() => [new OtlpScope("m", null, registry)], [], OtlpTemporality.Delta, timeProvider: time);
        var accepted = new List<ExportMetricsServiceRequest>();
        void Export(bool accept)
        {
            time.Now = time.Now.AddSeconds(1);
            OtlpExportBatch batch = collector.Collect();
            if (accept)
            {
                batch.Commit();
                accepted.Add(Parse(batch));
            }
        }

        counter.Add(3, s_a);
        counter.Add(1, s_b);
        Export(accept: true);
        counter.Add(4, s_a);
        Assert.True(counter.Remove(s_a));
        Export(accept: false);
        Export(accept: true);

        long sentForA = accepted.SelectMany(r => r.ResourceMetrics.SelectMany(m => m.ScopeMetrics).SelectMany(s => s.Metrics))
            .Where(m => m.Name == "requests").SelectMany(m => m.Sum.DataPoints).Where(p => Attributes(p.Attributes) == "tenant=s:a").Sum(p => p.AsInt);
        Assert.Equal(3 + 4, sentForA);
    }

    // docs/series-lifecycle.md, "What a reader sees": "remove series only through idle expiry (an
    // idle series has nothing unexported)". A series whose change went out only in exports the
    // receiver did not accept still has it unexported when it expires.
    [Fact]
    public void AnIdleSeriesWhoseDeltaWasNeverAcceptedIsNotExpiredWithItsChangeUnsent()
    {
        var registry = new MetricRegistry(new MetricRegistryOptions { RemoveSeriesIdleForCollections = 2 });
        PartitionedCounter counter = registry.CreateCounter("requests");
        var time = new ManualTime(s_start);
        var collector = new OtlpMetricsCollector(() => [new OtlpScope("m", null, registry)], [], OtlpTemporality.Delta, timeProvider: time);
        var accepted = new List<ExportMetricsServiceRequest>();
        void Export(bool accept)
        {
            time.Now = time.Now.AddSeconds(1);
            OtlpExportBatch batch = collector.Collect();
            if (accept)
            {
                batch.Commit();
                accepted.Add(Parse(batch));
            }
        }

        counter.Add(5, s_a);
        counter.Add(1, s_b);
        Export(accept: true);
        counter.Add(2, s_a);

        // The receiver is down for a few intervals, then back.
        for (int i = 0; i < 5; i++)
        {
            counter.Add(1, s_b);
            Export(accept: false);
        }

        counter.Add(1, s_b);
        Export(accept: true);
        Export(accept: true);

        long Sent(string tenant) => accepted.SelectMany(r => r.ResourceMetrics.SelectMany(m => m.ScopeMetrics).SelectMany(s => s.Metrics))
            .Where(m => m.Name == "requests").SelectMany(m => m.Sum.DataPoints).Where(p => Attributes(p.Attributes) == $"tenant=s:{tenant}").Sum(p => p.AsInt);
        Assert.Equal(1 + 5 + 1, Sent("b"));
        Assert.Equal(5 + 2, Sent("a"));
    }

    // Cumulative: the export that removes a series carries its final total; when it is not
    // accepted, the next one carries that point as it was (its start and time), beside a new series
    // of the same tags, which starts from zero at a start of its own.
    [Fact]
    public void ACumulativeRemovedSeriesWhoseLastExportFailedHasItsFinalTotalInTheNextExport()
    {
        var registry = new MetricRegistry();
        PartitionedCounter counter = registry.CreateCounter("requests");
        PartitionedHistogram latency = registry.CreateHistogram("latency", null, null, [1, 10]);
        var time = new ManualTime(s_start);
        var collector = new OtlpMetricsCollector(() => [new OtlpScope("m", null, registry)], [], OtlpTemporality.Cumulative, timeProvider: time);
        ExportMetricsServiceRequest Export(bool accept)
        {
            time.Now = time.Now.AddSeconds(1);
            OtlpExportBatch batch = collector.Collect();
            if (accept)
            {
                batch.Commit();
            }

            return Parse(batch);
        }

        counter.Add(3, s_a);
        latency.Record(5, s_a);
        Export(accept: true);
        counter.Add(4, s_a);
        latency.Record(50, s_a);
        Assert.True(counter.Remove(s_a));
        Assert.True(latency.Remove(s_a));
        NumberDataPoint last = Point(Metric(Export(accept: false), "requests").Sum.DataPoints, "tenant=s:a");
        counter.Add(2, s_a);
        ExportMetricsServiceRequest next = Export(accept: true);
        ExportMetricsServiceRequest after = Export(accept: true);

        NumberDataPoint[] points = [.. Metric(next, "requests").Sum.DataPoints.OrderBy(p => p.TimeUnixNano)];
        Assert.Equal(2, points.Length);
        Assert.Equal(last, points[0]);
        Assert.Equal((7L, ManualTime.UnixNano(s_start.AddSeconds(2))), (points[0].AsInt, points[0].TimeUnixNano));
        Assert.Equal((2L, ManualTime.UnixNano(s_start.AddSeconds(3))), (points[1].AsInt, points[1].TimeUnixNano));
        Assert.True(points[1].StartTimeUnixNano > points[0].StartTimeUnixNano);
        HistogramDataPoint histogram = Assert.Single(Metric(next, "latency").Histogram.DataPoints);
        Assert.Equal([0UL, 1UL, 1UL], histogram.BucketCounts);
        Assert.Equal(55.0, histogram.Sum);
        Assert.Equal(2, Point(Metric(after, "requests").Sum.DataPoints, "tenant=s:a").AsInt);
        Assert.False(HasMetric(after, "latency"));
    }

    // An instrument whose only series was removed has none left to read: the exports after still
    // write it, for that series' last point alone, until one is accepted; then nothing.
    [Fact]
    public void AnInstrumentWhoseLastSeriesWasRemovedStillSendsItsUnacceptedPoint()
    {
        var registry = new MetricRegistry();
        PartitionedCounter counter = registry.CreateCounter("requests");
        var time = new ManualTime(s_start);
        var collector = new OtlpMetricsCollector(() => [new OtlpScope("m", null, registry)], [], OtlpTemporality.Delta, timeProvider: time);
        ExportMetricsServiceRequest Export(bool accept)
        {
            time.Now = time.Now.AddSeconds(1);
            OtlpExportBatch batch = collector.Collect();
            if (accept)
            {
                batch.Commit();
            }

            return Parse(batch);
        }

        counter.Add(3, s_a);
        Export(accept: true);
        counter.Add(4, s_a);
        Assert.True(counter.Remove(s_a));
        NumberDataPoint last = Point(Metric(Export(accept: false), "requests").Sum.DataPoints, "tenant=s:a");
        ExportMetricsServiceRequest failedAgain = Export(accept: false);
        ExportMetricsServiceRequest accepted = Export(accept: true);
        ExportMetricsServiceRequest after = Export(accept: true);

        Assert.Equal((4L, ManualTime.UnixNano(s_start.AddSeconds(1)), ManualTime.UnixNano(s_start.AddSeconds(2))), (last.AsInt, last.StartTimeUnixNano, last.TimeUnixNano));
        Assert.Equal(last, Assert.Single(Metric(failedAgain, "requests").Sum.DataPoints));
        Assert.Equal(last, Assert.Single(Metric(accepted, "requests").Sum.DataPoints));
        Assert.False(HasMetric(after, "requests"));
    }

    // An observable series its callback stops reporting is gone from the next collection; where the
    // export of its last report was not accepted, that point goes with the next export, once.
    [Theory]
    [InlineData(OtlpTemporality.Delta, 5L)]
    [InlineData(OtlpTemporality.Cumulative, 15L)]
    public void AnObservedSeriesWhoseLastReportWasNotAcceptedGoesWithTheNextExport(OtlpTemporality temporality, long expected)
    {
        var registry = new MetricRegistry();
        long? value = 10;
        registry.CreateObservableCounter("observed", () => value is { } v ? [new Measurement<long>(v, s_a)] : []);
        var time = new ManualTime(s_start);
        var collector = new OtlpMetricsCollector(() => [new OtlpScope("m", null, registry)], [], temporality, timeProvider: time);
        ExportMetricsServiceRequest Export(bool accept)
        {
            time.Now = time.Now.AddSeconds(1);
            OtlpExportBatch batch = collector.Collect();
            if (accept)
            {
                batch.Commit();
            }

            return Parse(batch);
        }

        Export(accept: true);
        value = 15;
        NumberDataPoint last = Assert.Single(Metric(Export(accept: false), "observed").Sum.DataPoints);
        value = null;
        ExportMetricsServiceRequest next = Export(accept: true);
        ExportMetricsServiceRequest after = Export(accept: true);

        Assert.Equal(expected, last.AsInt);
        Assert.Equal(last, Assert.Single(Metric(next, "observed").Sum.DataPoints));
        Assert.False(HasMetric(after, "observed"));
    }

    // metrics.proto: a point's interval is (start_time_unix_nano, time_unix_nano]; the data model's
    // "Resets and Gaps" has a new sequence start at or before its first point's time. A tag set an
    // observable callback reports again after a collection that did not report it is a new series
    // (ObservedCallback), made by the callback, which runs after the export took its time.
    [Theory]
    [InlineData(OtlpTemporality.Cumulative)]
    [InlineData(OtlpTemporality.Delta)]
    public void AnObservedSeriesThatComesBackStartsNoLaterThanItsPoint(OtlpTemporality temporality)
    {
        var registry = new MetricRegistry();
        bool report = true;
        IEnumerable<Measurement<long>> Observe()
        {
            // A callback that takes a moment, as one that reads a device or a file does.
            Thread.Sleep(5);
            return report ? [new Measurement<long>(10, s_a)] : [];
        }

        registry.CreateObservableCounter("observed", Observe);
        var collector = new OtlpMetricsCollector(() => [new OtlpScope("m", null, registry)], [], temporality);
        ExportMetricsServiceRequest Export()
        {
            OtlpExportBatch batch = collector.Collect();
            batch.Commit();
            return Parse(batch);
        }

        Export();
        report = false;
        Export();
        report = true;
        NumberDataPoint back = Point(Metric(Export(), "observed").Sum.DataPoints, "tenant=s:a");

        Assert.True(
            back.StartTimeUnixNano <= back.TimeUnixNano,
            $"start_time_unix_nano {back.StartTimeUnixNano} is after time_unix_nano {back.TimeUnixNano}");
    }

    // The same for a synchronous series of a removed one's tags, and for an instrument, made by
    // another thread while an export runs, after it took its time: each starts no later than its
    // point, and a cumulative one keeps that start in the exports after.
    [Theory]
    [InlineData(OtlpTemporality.Cumulative)]
    [InlineData(OtlpTemporality.Delta)]
    public void ASeriesOrInstrumentMadeAfterTheExportTookItsTimeStartsNoLaterThanItsPoint(OtlpTemporality temporality)
    {
        var registry = new MetricRegistry();
        PartitionedCounter counter = registry.CreateCounter("requests");
        var time = new AfterNowTime();
        var collector = new OtlpMetricsCollector(() => [new OtlpScope("m", null, registry)], [], temporality, timeProvider: time);
        ExportMetricsServiceRequest Export()
        {
            OtlpExportBatch batch = collector.Collect();
            batch.Commit();
            return Parse(batch);
        }

        counter.Add(1, s_a);
        Export();
        Assert.True(counter.Remove(s_a));
        Export();
        time.AfterNow = () =>
        {
            Thread.Sleep(2);
            counter.Add(2, s_a);
            registry.CreateCounter("late").Add(3);
        };
        ExportMetricsServiceRequest first = Export();
        counter.Add(1, s_a);
        ExportMetricsServiceRequest second = Export();

        NumberDataPoint series = Point(Metric(first, "requests").Sum.DataPoints, "tenant=s:a");
        NumberDataPoint late = Assert.Single(Metric(first, "late").Sum.DataPoints);
        Assert.Equal((2L, 3L), (series.AsInt, late.AsInt));
        Assert.All([series, late, Point(Metric(second, "requests").Sum.DataPoints, "tenant=s:a")], p => Assert.True(
            p.StartTimeUnixNano <= p.TimeUnixNano,
            $"start_time_unix_nano {p.StartTimeUnixNano} is after time_unix_nano {p.TimeUnixNano}"));
        if (temporality == OtlpTemporality.Cumulative)
        {
            Assert.Equal(series.StartTimeUnixNano, Point(Metric(second, "requests").Sum.DataPoints, "tenant=s:a").StartTimeUnixNano);
            Assert.Equal(late.StartTimeUnixNano, Assert.Single(Metric(second, "late").Sum.DataPoints).StartTimeUnixNano);
        }
    }

    // metrics/sdk.md, "Start timestamps": an asynchronous series starts at "the timestamp of the
    // collection interval prior to the first series measurement".
    [Fact]
    public void AnObservedSeriesThatComesBackStartsAtThePreviousExport()
    {
        var registry = new MetricRegistry();
        bool report = true;
        registry.CreateObservableCounter("observed", () => report ? [new Measurement<long>(10, s_a)] : []);
        var time = new ManualTime(s_start);
        var collector = new OtlpMetricsCollector(() => [new OtlpScope("m", null, registry)], [], OtlpTemporality.Cumulative, timeProvider: time);
        ExportMetricsServiceRequest Export()
        {
            time.Now = time.Now.AddSeconds(1);
            OtlpExportBatch batch = collector.Collect();
            batch.Commit();
            return Parse(batch);
        }

        Export();
        report = false;
        Export();
        report = true;
        NumberDataPoint back = Assert.Single(Metric(Export(), "observed").Sum.DataPoints);
        NumberDataPoint next = Assert.Single(Metric(Export(), "observed").Sum.DataPoints);

        Assert.Equal(ManualTime.UnixNano(s_start.AddSeconds(2)), back.StartTimeUnixNano);
        Assert.Equal(back.StartTimeUnixNano, next.StartTimeUnixNano);
    }
}
