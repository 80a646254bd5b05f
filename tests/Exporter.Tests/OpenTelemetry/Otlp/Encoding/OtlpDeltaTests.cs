using System.Diagnostics;
using System.Diagnostics.Metrics;
using OpenTelemetry.Proto.Collector.Metrics.V1;
using OpenTelemetry.Proto.Metrics.V1;
using ScalableMetrics.Exporter.OpenTelemetry.Otlp.Encoding;
using static ScalableMetrics.Exporter.Tests.OpenTelemetry.Otlp.OtlpDecoded;

namespace ScalableMetrics.Exporter.Tests.OpenTelemetry.Otlp.Encoding;

public class OtlpDeltaTests
{
    // After every instrument's creation (the real clock's), as export times are.
    private static readonly DateTimeOffset s_start = DateTimeOffset.UtcNow.AddHours(1);

    [Fact]
    public void AcceptedDeltasSumToTheTotalsWithAFailedExportBetween()
    {
        var registry = new MetricRegistry();
        PartitionedCounter counter = registry.CreateCounter("requests");
        PartitionedDoubleCounter bytes = registry.CreateDoubleCounter("bytes");
        PartitionedHistogram latency = registry.CreateHistogram("latency", null, null, [1, 10]);
        PartitionedExponentialHistogram sizes = registry.CreateExponentialHistogram("sizes", maxBuckets: 8);
        OperationData query = registry.CreateOperationData("query", null, [0.5]);
        long observed = 0;
        registry.CreateObservableCounter("observed", () => [new Measurement<long>(observed)]);
        var time = new ManualTime(s_start);
        var collector = new OtlpMetricsCollector(() => [new OtlpScope("m", null, registry)], [], OtlpTemporality.Delta, timeProvider: time);

        var accepted = new List<ExportMetricsServiceRequest>();
        double[] sizeValues = [1.5, 1.6, 3, 900, 0.001, 70_000];
        for (int round = 0; round < 6; round++)
        {
            counter.Add(round + 1, new KeyValuePair<string, object?>("round", round % 2 == 0 ? "even" : "odd"));
            bytes.Add(0.5 * (round + 1));
            latency.Record(round * 3.0);
            sizes.Record(sizeValues[round]);
            query.Record(TimeSpan.FromSeconds(round));
            observed += 10;
            time.Now = s_start.AddSeconds(round + 1);
            OtlpExportBatch batch = collector.Collect();

            // The third export fails: its change must go out with the fourth.
            if (round != 2)
            {
                batch.Commit();
                accepted.Add(Parse(batch));
            }
        }

        Assert.Equal(counter.Collect().Sum(r => r.Value), accepted.Sum(r => Metric(r, "requests").Sum.DataPoints.Sum(p => p.AsInt)));
        Assert.Equal(9, accepted.Sum(r => Metric(r, "requests").Sum.DataPoints.Where(p => Attributes(p.Attributes) == "round=s:even").Sum(p => p.AsInt)));
        Assert.All(accepted, r => Assert.Equal(AggregationTemporality.Delta, Metric(r, "requests").Sum.AggregationTemporality));
        Assert.Equal(Assert.Single(bytes.Collect()).Value, accepted.Sum(r => Assert.Single(Metric(r, "bytes").Sum.DataPoints).AsDouble));
        Assert.Equal(60, accepted.Sum(r => Assert.Single(Metric(r, "observed").Sum.DataPoints).AsInt));

        HistogramReading histogram = Assert.Single(latency.Collect());
        HistogramDataPoint[] latencyPoints = [.. accepted.Select(r => Assert.Single(Metric(r, "latency").Histogram.DataPoints))];
        Assert.Equal(histogram.BucketCounts.Select(c => (ulong)c), Enumerable.Range(0, 3).Select(j => latencyPoints.Aggregate(0UL, (s, p) => s + p.BucketCounts[j])));
        Assert.Equal((ulong)histogram.Count, latencyPoints.Aggregate(0UL, (s, p) => s + p.Count));
        Assert.Equal(histogram.Sum, latencyPoints.Sum(p => p.Sum));

        // Exponential buckets, compared by the values they cover: the scale fell as the range widened.
        ExponentialHistogramReading exponential = Assert.Single(sizes.Collect());
        ExponentialHistogramDataPoint[] sizePoints = [.. accepted.Select(r => Assert.Single(Metric(r, "sizes").ExponentialHistogram.DataPoints))];
        Assert.True(sizePoints[0].Scale > sizePoints[^1].Scale);
        Assert.Equal((ulong)exponential.Count, sizePoints.Aggregate(0UL, (s, p) => s + p.Count));
        Assert.Equal((ulong)exponential.ZeroCount, sizePoints.Aggregate(0UL, (s, p) => s + p.ZeroCount));
        Assert.Equal(exponential.Sum, sizePoints.Sum(p => p.Sum));
        Assert.Equal(
            exponential.PositiveBucketCounts.Select((c, j) => (Index: exponential.PositiveOffset + j, Count: (ulong)c)).Where(b => b.Count != 0),
            sizePoints.SelectMany(p => p.Positive.BucketCounts.Select((c, j) => (Index: (p.Positive.Offset + j) >> (p.Scale - exponential.Scale), Count: c)))
                .GroupBy(b => b.Index).Select(g => (Index: g.Key, Count: g.Aggregate(0UL, (s, b) => s + b.Count))).Where(b => b.Count != 0).OrderBy(b => b.Index));

        OperationReading operation = Assert.Single(query.Collect());
        HistogramDataPoint[] queryPoints = [.. accepted.Select(r => Assert.Single(Metric(r, "query").Histogram.DataPoints))];
        Assert.Equal((ulong)operation.Count, queryPoints.Aggregate(0UL, (s, p) => s + p.Count));
        Assert.Equal(operation.ElapsedSeconds, queryPoints.Sum(p => p.Sum), 9);
        Assert.Equal(operation.BucketCounts!.Select(c => (ulong)c), Enumerable.Range(0, 2).Select(j => queryPoints.Aggregate(0UL, (s, p) => s + p.BucketCounts[j])));
    }

    [Fact]
    public void DeltasStartAtTheLastAcceptedExport()
    {
        var registry = new MetricRegistry();
        PartitionedCounter counter = registry.CreateCounter("requests");
        counter.Add(1);
        var time = new ManualTime(s_start);
        var collector = new OtlpMetricsCollector(() => [new OtlpScope("m", null, registry)], [], OtlpTemporality.Delta, timeProvider: time);
        ulong created = ManualTime.UnixNano(counter.CreatedAt);

        NumberDataPoint first = Only(collector, time, s_start.AddSeconds(1), commit: true);
        counter.Add(2);
        NumberDataPoint failed = Only(collector, time, s_start.AddSeconds(2), commit: false);
        counter.Add(4);
        NumberDataPoint third = Only(collector, time, s_start.AddSeconds(3), commit: true);
        counter.Add(8, new KeyValuePair<string, object?>("late", true));
        ExportMetricsServiceRequest fourth = Collect(collector, time, s_start.AddSeconds(4), commit: true);

        Assert.Equal((created, ManualTime.UnixNano(s_start.AddSeconds(1)), 1L), (first.StartTimeUnixNano, first.TimeUnixNano, first.AsInt));
        Assert.Equal((ManualTime.UnixNano(s_start.AddSeconds(1)), 2L), (failed.StartTimeUnixNano, failed.AsInt));
        Assert.Equal((ManualTime.UnixNano(s_start.AddSeconds(1)), 6L), (third.StartTimeUnixNano, third.AsInt));

        // A series that first appears: its whole value, from the last accepted export.
        NumberDataPoint late = Point(Metric(fourth, "requests").Sum.DataPoints, "late=b:True");
        Assert.Equal((ManualTime.UnixNano(s_start.AddSeconds(3)), 8L), (late.StartTimeUnixNano, late.AsInt));

        // The untagged series, nothing added since the third: no point (metrics/sdk.md, "MetricReader").
        Assert.DoesNotContain(Metric(fourth, "requests").Sum.DataPoints, p => p.Attributes.Count == 0);
    }

    [Fact]
    public void ADeltaHistogramPointAfterAnInfiniteValueHasNoNaNSum()
    {
        // A delta point's sum is the sum of the values recorded in its interval. +∞ is a value the
        // histogram takes (docs/instruments.md): the cumulative sum is then +∞ for good, and a later
        // interval's sum, that +∞ less the last +∞, would be NaN, no sum of any value recorded.
        // `sum` is optional in metrics.proto: where the interval's sum cannot be known it is left
        // out, which claims none.
        var registry = new MetricRegistry();
        PartitionedHistogram latency = registry.CreateHistogram("latency", null, null, [1, 10]);
        var time = new ManualTime(s_start);
        var collector = new OtlpMetricsCollector(() => [new OtlpScope("m", null, registry)], [], OtlpTemporality.Delta, timeProvider: time);

        latency.Record(double.PositiveInfinity);
        HistogramDataPoint first = Assert.Single(Metric(Collect(collector, time, s_start.AddSeconds(1), commit: true), "latency").Histogram.DataPoints);
        latency.Record(5.0);
        HistogramDataPoint five = Assert.Single(Metric(Collect(collector, time, s_start.AddSeconds(2), commit: true), "latency").Histogram.DataPoints);
        latency.Record(double.PositiveInfinity);
        HistogramDataPoint again = Assert.Single(Metric(Collect(collector, time, s_start.AddSeconds(3), commit: true), "latency").Histogram.DataPoints);

        Assert.Equal((1UL, double.PositiveInfinity), (first.Count, first.Sum));
        Assert.Equal(1UL, five.Count);
        Assert.False(five.HasSum, $"the sum of an interval whose one record is 5 was written as {five.Sum}");
        Assert.Equal(1UL, again.Count);
        Assert.False(again.HasSum, $"the sum of an interval after an infinite one was written as {again.Sum}");
    }

    [Fact]
    public void ADeltaExponentialHistogramPointAfterAnInfiniteValueHasNoNaNSum()
    {
        // As the explicit histogram's (above): +∞ counts in the last bucket, the cumulative sum stays
        // +∞, and a later interval's sum is not known.
        var registry = new MetricRegistry();
        PartitionedExponentialHistogram latency = registry.CreateExponentialHistogram("latency");
        var time = new ManualTime(s_start);
        var collector = new OtlpMetricsCollector(() => [new OtlpScope("m", null, registry)], [], OtlpTemporality.Delta, timeProvider: time);

        latency.Record(double.PositiveInfinity);
        ExponentialHistogramDataPoint first = Assert.Single(Metric(Collect(collector, time, s_start.AddSeconds(1), commit: true), "latency").ExponentialHistogram.DataPoints);
        latency.Record(5.0);
        ExponentialHistogramDataPoint five = Assert.Single(Metric(Collect(collector, time, s_start.AddSeconds(2), commit: true), "latency").ExponentialHistogram.DataPoints);

        Assert.Equal((1UL, double.PositiveInfinity), (first.Count, first.Sum));
        Assert.Equal(1UL, five.Count);
        Assert.False(five.HasSum, $"the sum of an interval whose one record is 5 was written as {five.Sum}");
    }

    [Fact]
    public void UpDownCountersStayCumulativeAndGaugesHaveNoTemporality()
    {
        var registry = new MetricRegistry();
        PartitionedUpDownCounter queue = registry.CreateUpDownCounter("queue");
        Gauge gauge = registry.CreateGauge("threads");
        registry.CreateObservableUpDownCounter("observed.queue", () => [new Measurement<long>(5)]);
        var time = new ManualTime(s_start);
        var collector = new OtlpMetricsCollector(() => [new OtlpScope("m", null, registry)], [], OtlpTemporality.Delta, timeProvider: time);

        queue.Add(3);
        gauge.Set(4);
        Collect(collector, time, s_start.AddSeconds(1), commit: true);
        queue.Add(2);
        ExportMetricsServiceRequest second = Collect(collector, time, s_start.AddSeconds(2), commit: true);

        Sum sum = Metric(second, "queue").Sum;
        Assert.Equal((AggregationTemporality.Cumulative, false, 5L), (sum.AggregationTemporality, sum.IsMonotonic, Assert.Single(sum.DataPoints).AsInt));
        Assert.Equal(ManualTime.UnixNano(queue.CreatedAt), sum.DataPoints[0].StartTimeUnixNano);
        Assert.Equal(5, Assert.Single(Metric(second, "observed.queue").Sum.DataPoints).AsInt);
        Assert.Equal(AggregationTemporality.Cumulative, Metric(second, "observed.queue").Sum.AggregationTemporality);
        Assert.Equal(4, Assert.Single(Metric(second, "threads").Gauge.DataPoints).AsInt);
    }

    // Specification (metrics/sdk_exporters/otlp.md, "LowMemory"), as OpenTelemetry .NET's
    // MetricReader.LowMemoryTemporalityPreferenceFunc has it.
    [Fact]
    public void LowMemoryIsDeltaForSynchronousCountersAndHistogramsAndCumulativeForObservableCounters()
    {
        var registry = new MetricRegistry();
        PartitionedCounter counter = registry.CreateCounter("requests");
        PartitionedHistogram latency = registry.CreateHistogram("latency", null, null, [1, 10]);
        PartitionedUpDownCounter queue = registry.CreateUpDownCounter("queue");
        long observed = 10;
        registry.CreateObservableCounter("observed", () => [new Measurement<long>(observed)]);
        var time = new ManualTime(s_start);
        var collector = new OtlpMetricsCollector(() => [new OtlpScope("m", null, registry)], [], OtlpTemporality.LowMemory, timeProvider: time);

        counter.Add(3);
        latency.Record(2);
        queue.Add(4);
        Collect(collector, time, s_start.AddSeconds(1), commit: true);
        counter.Add(2);
        latency.Record(20);
        queue.Add(1);
        observed = 25;
        ExportMetricsServiceRequest second = Collect(collector, time, s_start.AddSeconds(2), commit: true);

        Sum sum = Metric(second, "requests").Sum;
        Assert.Equal((AggregationTemporality.Delta, 2L), (sum.AggregationTemporality, Assert.Single(sum.DataPoints).AsInt));
        Histogram histogram = Metric(second, "latency").Histogram;
        Assert.Equal((AggregationTemporality.Delta, 1UL), (histogram.AggregationTemporality, Assert.Single(histogram.DataPoints).Count));
        Sum upDown = Metric(second, "queue").Sum;
        Assert.Equal((AggregationTemporality.Cumulative, 5L), (upDown.AggregationTemporality, Assert.Single(upDown.DataPoints).AsInt));
        Sum observedSum = Metric(second, "observed").Sum;
        NumberDataPoint observedPoint = Assert.Single(observedSum.DataPoints);
        Assert.Equal((AggregationTemporality.Cumulative, true, 25L), (observedSum.AggregationTemporality, observedSum.IsMonotonic, observedPoint.AsInt));
        Assert.Equal(ManualTime.UnixNano(s_start.AddSeconds(1)), sum.DataPoints[0].StartTimeUnixNano);
        Assert.True(observedPoint.StartTimeUnixNano < ManualTime.UnixNano(s_start), "A cumulative point starts at its instrument's creation.");
    }

    // metrics.proto, AGGREGATION_TEMPORALITY_DELTA: successive points cover continuous,
    // non-overlapping intervals. A callback that fails once leaves its series' baselines at the last
    // accepted reading, so the next point's change is measured from there: its interval must start
    // there too, not at the later export that did not carry the instrument.
    [Fact]
    public void ADeltaAfterAFailedCallbackStartsWhereItsLastPointEnded()
    {
        var registry = new MetricRegistry();
        long value = 10;
        bool fail = false;
        IEnumerable<Measurement<long>> Observe() => fail ? throw new InvalidOperationException("down") : [new Measurement<long>(value)];
        registry.CreateObservableCounter("observed", Observe);
        var time = new ManualTime(s_start);
        var collector = new OtlpMetricsCollector(() => [new OtlpScope("m", null, registry)], [], OtlpTemporality.Delta, timeProvider: time);

        NumberDataPoint first = Assert.Single(Metric(Collect(collector, time, s_start.AddSeconds(1), commit: true), "observed").Sum.DataPoints);
        fail = true;
        Assert.False(HasMetric(Collect(collector, time, s_start.AddSeconds(2), commit: true), "observed"));
        fail = false;
        value = 25;
        NumberDataPoint third = Assert.Single(Metric(Collect(collector, time, s_start.AddSeconds(3), commit: true), "observed").Sum.DataPoints);

        // The value is the change since the first point (25 - 10): its interval starts where that point ended.
        Assert.Equal(15, third.AsInt);
        Assert.Equal(first.TimeUnixNano, third.StartTimeUnixNano);
    }

    [Fact]
    public void AnObservedSeriesThatGoesAwayKeepsNothing()
    {
        var registry = new MetricRegistry();
        long? value = 10;
        registry.CreateObservableCounter("observed", () => value is { } v ? [new Measurement<long>(v, new KeyValuePair<string, object?>("k", "a"))] : []);
        var time = new ManualTime(s_start);
        var collector = new OtlpMetricsCollector(() => [new OtlpScope("m", null, registry)], [], OtlpTemporality.Delta, timeProvider: time);

        ExportMetricsServiceRequest first = Collect(collector, time, s_start.AddSeconds(1), commit: true);
        value = null;
        ExportMetricsServiceRequest gone = Collect(collector, time, s_start.AddSeconds(2), commit: true);
        value = 15;
        ExportMetricsServiceRequest back = Collect(collector, time, s_start.AddSeconds(3), commit: true);

        Assert.Equal(10, Assert.Single(Metric(first, "observed").Sum.DataPoints).AsInt);
        Assert.False(HasMetric(gone, "observed"));
        Assert.Equal(15, Assert.Single(Metric(back, "observed").Sum.DataPoints).AsInt);
    }

    [Theory]
    [InlineData(ExemplarFilter.None)]
    [InlineData(ExemplarFilter.TraceBased)]
    public void HistogramDeltasFollowEachSeriesAsSeriesAreAddedAndABatchIsCommittedTwice(ExemplarFilter exemplarFilter)
    {
        var registry = new MetricRegistry(new MetricRegistryOptions { ExemplarFilter = exemplarFilter });
        PartitionedHistogram latency = registry.CreateHistogram("latency", null, null, [1, 10]);

        // Every record in a sampled trace: with TraceBased, each keeps an exemplar, and the histogram is read with them.
        using var activity = new Activity("test");
        activity.SetIdFormat(ActivityIdFormat.W3C);
        activity.ActivityTraceFlags = ActivityTraceFlags.Recorded;
        activity.Start();
        var time = new ManualTime(s_start);
        var collector = new OtlpMetricsCollector(() => [new OtlpScope("m", null, registry)], [], OtlpTemporality.Delta, timeProvider: time);
        KeyValuePair<string, object?> a = new("s", "a");
        KeyValuePair<string, object?> b = new("s", "b");

        latency.Record(0.5, a);
        OtlpExportBatch first = collector.Collect();
        first.Commit();
        first.Commit();
        latency.Record(5, a);
        latency.Record(50, b);
        OtlpExportBatch second = collector.Collect();
        HistogramDataPoint[] secondPoints = [.. Metric(Parse(second), "latency").Histogram.DataPoints];
        second.Commit();
        latency.Record(50, a);
        latency.Record(0.5, b);
        latency.Record(0.5, b);
        ExportMetricsServiceRequest third = Parse(collector.Collect());

        Assert.Equal(exemplarFilter == ExemplarFilter.TraceBased, latency.KeepsExemplars);
        HistogramDataPoint[] thirdPoints = [.. Metric(third, "latency").Histogram.DataPoints];
        AssertPoint(secondPoints, "s=s:a", [0, 1, 0], 5.0);
        AssertPoint(secondPoints, "s=s:b", [0, 0, 1], 50.0);
        AssertPoint(thirdPoints, "s=s:a", [0, 0, 1], 50.0);
        AssertPoint(thirdPoints, "s=s:b", [2, 0, 0], 1.0);

        static void AssertPoint(HistogramDataPoint[] points, string attributes, ulong[] buckets, double sum)
        {
            HistogramDataPoint point = Assert.Single(points, p => Attributes(p.Attributes) == attributes);
            Assert.Equal(buckets, point.BucketCounts);
            Assert.Equal(buckets.Aggregate(0UL, (s, c) => s + c), point.Count);
            Assert.Equal(sum, point.Sum);
        }
    }

    [Fact]
    public void CommittingABatchOlderThanTheLastCollectionChangesNothing()
    {
        var registry = new MetricRegistry();
        PartitionedCounter counter = registry.CreateCounter("requests");
        var time = new ManualTime(s_start);
        var collector = new OtlpMetricsCollector(() => [new OtlpScope("m", null, registry)], [], OtlpTemporality.Delta, timeProvider: time);

        counter.Add(1);
        OtlpExportBatch stale = collector.Collect();
        counter.Add(2);
        collector.Collect();
        stale.Commit();
        ExportMetricsServiceRequest next = Parse(collector.Collect());

        Assert.Equal(3, Assert.Single(Metric(next, "requests").Sum.DataPoints).AsInt);
    }

    [Fact]
    public void CumulativeExportsIgnoreCommits()
    {
        var registry = new MetricRegistry();
        PartitionedCounter counter = registry.CreateCounter("requests");
        var collector = new OtlpMetricsCollector(() => [new OtlpScope("m", null, registry)], [], OtlpTemporality.Cumulative);

        counter.Add(1);
        collector.Collect().Commit();
        counter.Add(2);
        Sum sum = Metric(Parse(collector.Collect()), "requests").Sum;

        Assert.Equal((AggregationTemporality.Cumulative, 3L), (sum.AggregationTemporality, Assert.Single(sum.DataPoints).AsInt));
    }

    // metrics.proto, NumberDataPoint.exemplars / HistogramDataPoint.exemplars: "exemplars collected
    // from measurements that were used to form the data point"; OtlpInstrumentEncoder: "A delta point
    // carries only the exemplars taken since its start". A measurement recorded after an export took
    // its time but before it read the instrument is in that export's point, value and exemplar: the
    // next delta point, which does not count it, must not carry its exemplar again.
    [Fact]
    public void ADeltaPointDoesNotRepeatAnExemplarThePreviousPointCounted()
    {
        var registry = new MetricRegistry(new MetricRegistryOptions { ExemplarFilter = ExemplarFilter.TraceBased });
        PartitionedCounter counter = registry.CreateCounter("requests");
        PartitionedHistogram latency = registry.CreateHistogram("latency", null, null, [1, 10]);
        var time = new AfterNowTime();
        var collector = new OtlpMetricsCollector(() => [new OtlpScope("m", null, registry)], [], OtlpTemporality.Delta, timeProvider: time);

        // Recorded in a sampled trace while the first export runs, between its clock read and its
        // read of the instruments: counted in the first export, exemplar and all.
        time.AfterNow = () =>
        {
            using var activity = new Activity("sampled");
            activity.SetIdFormat(ActivityIdFormat.W3C);
            activity.ActivityTraceFlags = ActivityTraceFlags.Recorded;
            activity.Start();
            counter.Add(1);
            latency.Record(5);
        };
        OtlpExportBatch first = collector.Collect();
        ExportMetricsServiceRequest firstRequest = Parse(first);
        first.Commit();

        // Outside a trace: counted in the second export, with no exemplar of its own.
        counter.Add(2);
        latency.Record(0.5);
        ExportMetricsServiceRequest second = Parse(collector.Collect());

        NumberDataPoint counted = Assert.Single(Metric(firstRequest, "requests").Sum.DataPoints);
        Assert.Equal((1L, 1), (counted.AsInt, counted.Exemplars.Count));
        NumberDataPoint next = Assert.Single(Metric(second, "requests").Sum.DataPoints);
        Assert.Equal(2, next.AsInt);
        Assert.Empty(next.Exemplars);
        HistogramDataPoint nextHistogram = Assert.Single(Metric(second, "latency").Histogram.DataPoints);
        Assert.Equal([1UL, 0UL, 0UL], nextHistogram.BucketCounts);
        Assert.Empty(nextHistogram.Exemplars);
    }

    // An exemplar whose delta point went in an export that was not accepted goes again with the
    // next export's point, which counts its measurement, and then not again.
    [Fact]
    public void AnExemplarOfAnExportNotAcceptedGoesWithTheNextOnce()
    {
        var registry = new MetricRegistry(new MetricRegistryOptions { ExemplarFilter = ExemplarFilter.TraceBased });
        PartitionedCounter counter = registry.CreateCounter("requests");
        var time = new ManualTime(s_start);
        var collector = new OtlpMetricsCollector(() => [new OtlpScope("m", null, registry)], [], OtlpTemporality.Delta, timeProvider: time);
        using (var activity = new Activity("sampled"))
        {
            activity.SetIdFormat(ActivityIdFormat.W3C);
            activity.ActivityTraceFlags = ActivityTraceFlags.Recorded;
            activity.Start();
            counter.Add(1);
        }

        NumberDataPoint failed = Only(collector, time, s_start.AddSeconds(1), commit: false);
        NumberDataPoint accepted = Only(collector, time, s_start.AddSeconds(2), commit: true);
        counter.Add(2);
        NumberDataPoint next = Only(collector, time, s_start.AddSeconds(3), commit: true);

        Assert.Equal((1L, 1), (failed.AsInt, failed.Exemplars.Count));
        Assert.Equal((1L, 1), (accepted.AsInt, accepted.Exemplars.Count));
        Assert.Equal(failed.Exemplars[0], accepted.Exemplars[0]);
        Assert.Equal((2L, 0), (next.AsInt, next.Exemplars.Count));
    }

    // Metrics SDK specification (metrics/sdk.md, "MetricReader"): "For synchronous instruments with
    // Delta aggregation temporality, MetricReader.Collect MUST only receive data points with
    // measurements recorded since the previous collection" (OpenTelemetry .NET leaves such a point
    // out). A series nothing was recorded into since the last accepted export has no delta point.
    [Fact]
    public void ADeltaExportLeavesOutSeriesWithNothingRecordedSinceTheLastExport()
    {
        var registry = new MetricRegistry();
        PartitionedCounter counter = registry.CreateCounter("requests");
        PartitionedHistogram latency = registry.CreateHistogram("latency", null, null, [1, 10]);
        KeyValuePair<string, object?> a = new("s", "a");
        KeyValuePair<string, object?> b = new("s", "b");
        var time = new ManualTime(s_start);
        var collector = new OtlpMetricsCollector(() => [new OtlpScope("m", null, registry)], [], OtlpTemporality.Delta, timeProvider: time);

        counter.Add(1, a);
        counter.Add(1, b);
        latency.Record(5, a);
        latency.Record(5, b);
        Collect(collector, time, s_start.AddSeconds(1), commit: true);
        counter.Add(1, b);
        latency.Record(5, b);
        ExportMetricsServiceRequest second = Collect(collector, time, s_start.AddSeconds(2), commit: true);

        Assert.Equal(["s=s:b"], Metric(second, "requests").Sum.DataPoints.Select(p => Attributes(p.Attributes)));
        Assert.Equal(["s=s:b"], Metric(second, "latency").Histogram.DataPoints.Select(p => Attributes(p.Attributes)));
    }

    // The same for an exponential histogram and an operation; a series left out comes back with
    // its next change, measured from its last accepted reading. An observable counter is not
    // synchronous: a series its callback reports is measured in every collection and keeps its
    // point, unchanged or not (metrics/sdk.md: "For asynchronous instruments ... data points with
    // measurements recorded since the previous collection").
    [Fact]
    public void ADeltaSeriesLeftOutComesBackWithItsNextChangeAndObservedSeriesStay()
    {
        var registry = new MetricRegistry();
        PartitionedCounter counter = registry.CreateCounter("requests");
        PartitionedExponentialHistogram sizes = registry.CreateExponentialHistogram("sizes", maxBuckets: 8);
        OperationData query = registry.CreateOperationData("query", null, [0.5]);
        registry.CreateObservableCounter("observed", () => [new Measurement<long>(10)]);
        var time = new ManualTime(s_start);
        var collector = new OtlpMetricsCollector(() => [new OtlpScope("m", null, registry)], [], OtlpTemporality.Delta, timeProvider: time);

        counter.Add(1);
        sizes.Record(3);
        query.Record(TimeSpan.FromSeconds(1));
        Collect(collector, time, s_start.AddSeconds(1), commit: true);
        ExportMetricsServiceRequest idle = Collect(collector, time, s_start.AddSeconds(2), commit: true);
        counter.Add(2);
        sizes.Record(3);
        query.Record(TimeSpan.FromSeconds(0.25));
        ExportMetricsServiceRequest back = Collect(collector, time, s_start.AddSeconds(3), commit: true);

        Assert.False(HasMetric(idle, "requests") || HasMetric(idle, "sizes") || HasMetric(idle, "query"));
        Assert.Equal(0, Assert.Single(Metric(idle, "observed").Sum.DataPoints).AsInt);
        NumberDataPoint counted = Assert.Single(Metric(back, "requests").Sum.DataPoints);
        Assert.Equal((2L, ManualTime.UnixNano(s_start.AddSeconds(2))), (counted.AsInt, counted.StartTimeUnixNano));
        Assert.Equal(1UL, Assert.Single(Metric(back, "sizes").ExponentialHistogram.DataPoints).Count);
        HistogramDataPoint operation = Assert.Single(Metric(back, "query").Histogram.DataPoints);
        Assert.Equal((1UL, 0.25), (operation.Count, operation.Sum));
        Assert.Equal([1UL, 0UL], operation.BucketCounts);
    }

    private static NumberDataPoint Only(OtlpMetricsCollector collector, ManualTime time, DateTimeOffset at, bool commit) =>
        Assert.Single(Metric(Collect(collector, time, at, commit), "requests").Sum.DataPoints);

    private static ExportMetricsServiceRequest Collect(OtlpMetricsCollector collector, ManualTime time, DateTimeOffset at, bool commit)
    {
        time.Now = at;
        OtlpExportBatch batch = collector.Collect();
        ExportMetricsServiceRequest request = Parse(batch);
        if (commit)
        {
            batch.Commit();
        }

        return request;
    }
}
