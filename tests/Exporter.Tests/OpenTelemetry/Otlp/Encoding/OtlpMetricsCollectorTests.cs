using System.Diagnostics;
using System.Diagnostics.Metrics;
using Microsoft.Extensions.Logging;
using OpenTelemetry.Proto.Collector.Metrics.V1;
using OpenTelemetry.Proto.Metrics.V1;
using ScalableMetrics.Exporter.OpenTelemetry.Otlp.Encoding;
using static ScalableMetrics.Exporter.Tests.OpenTelemetry.Otlp.OtlpDecoded;
using DataCase = OpenTelemetry.Proto.Metrics.V1.Metric.DataOneofCase;
using ProtoExemplar = OpenTelemetry.Proto.Metrics.V1.Exemplar;

namespace ScalableMetrics.Exporter.Tests.OpenTelemetry.Otlp.Encoding;

public class OtlpMetricsCollectorTests
{
    // After every instrument's creation (the real clock's), as an export's time is: an instrument
    // created after the export took its time starts at it, not at its creation.
    private static readonly DateTimeOffset s_now = DateTimeOffset.UtcNow.AddHours(1);

    private static readonly KeyValuePair<string, object?>[] s_resource =
    [
        new("service.name", "checkout"),
        new("service.instance.id", "i-1"),
        new("service.version", "1.2.3"),
        new("deployment.tier", 3L),
        new("host.tags", new[] { "a", "b" }),
    ];

    [Fact]
    public void AListenedMetersTelemetrySchemaUrlIsItsScopesSchemaUrl()
    {
        string id = Guid.NewGuid().ToString("N");
        using var withSchema = new Meter(new MeterOptions("test.schema." + id) { Version = "2.0", TelemetrySchemaUrl = "https://opentelemetry.io/schemas/1.30.0" });
        using var without = new Meter("test.noschema." + id);
        using var host = new ScalableMetrics.Exporter.Listening.MeterListenerHost(["test.schema." + id, "test.noschema." + id], "ScalableMetrics", () => new MetricRegistry(), Microsoft.Extensions.Logging.Abstractions.NullLogger.Instance);
        host.Start();
        withSchema.CreateCounter<long>("schema.requests").Add(2);
        without.CreateCounter<long>("plain.requests").Add(3);
        var collector = new OtlpMetricsCollector(() => OtlpScope.Of(host), [], OtlpTemporality.Cumulative);

        ExportMetricsServiceRequest request = Parse(collector.Collect());

        ScopeMetrics[] scopes = [.. request.ResourceMetrics.SelectMany(r => r.ScopeMetrics)];
        ScopeMetrics schema = Assert.Single(scopes, s => s.Scope.Name == withSchema.Name);
        Assert.Equal("https://opentelemetry.io/schemas/1.30.0", schema.SchemaUrl);
        Assert.Equal("2.0", schema.Scope.Version);
        Assert.Equal(2, Assert.Single(schema.Metrics).Sum.DataPoints.Single().AsInt);
        Assert.Equal(string.Empty, Assert.Single(scopes, s => s.Scope.Name == without.Name).SchemaUrl);
    }

    [Fact]
    public void MessagesDecodeAsTheyGrowPastAndShrinkBelowTheLengthsOfTheLastCollection()
    {
        // A length takes one varint byte below 128 and two up to 16,383: the series count moves every
        // message across that line and back, so each length is written where the last one took fewer, then more bytes.
        var registry = new MetricRegistry();
        int reported = 1;
        registry.CreateObservableGauge("queue", () => Enumerable.Range(0, reported).Select(i => new Measurement<long>(i, new KeyValuePair<string, object?>("q", (long)i))));
        var collector = new OtlpMetricsCollector(() => [new OtlpScope("m", null, registry)], [], OtlpTemporality.Cumulative);

        foreach (int count in (int[])[1, 40, 1, 200, 3])
        {
            // Each export accepted: a series the callback stops reporting owes nothing to the next.
            reported = count;
            OtlpExportBatch batch = collector.Collect();
            batch.Commit();
            ExportMetricsServiceRequest request = Parse(batch);

            NumberDataPoint[] points = [.. Metric(request, "queue").Gauge.DataPoints];
            Assert.Equal(Enumerable.Range(0, count).Select(i => (long)i), points.Select(p => p.AsInt).Order());
            Assert.Equal(Enumerable.Range(0, count).Select(i => "q=i:" + i).Order(), points.Select(p => Attributes(p.Attributes)).Order());
        }
    }

    [Fact]
    public void EveryKindIsEncodedAsRecorded()
    {
        var registry = new MetricRegistry();
        PartitionedCounter requests = registry.CreateCounter("http.requests", "{request}", "Requests served");
        requests.Add(5, new("method", "GET"), new("code", 200));
        requests.Add(2, new("method", "POST"), new("ok", true), new("ratio", 0.5));
        registry.CreateDoubleCounter("io.bytes", "By").Add(1.5);
        PartitionedUpDownCounter queue = registry.CreateUpDownCounter("queue.length");
        queue.Add(3);
        queue.Add(-5);
        registry.CreateDoubleUpDownCounter("balance").Add(-0.25);
        registry.CreateGauge("threads").Set(7, new KeyValuePair<string, object?>("pool", "io"));
        registry.CreateDoubleGauge("temperature", "Cel").Set(21.5);
        registry.CreateGauge("never.set");
        registry.CreateObservableCounter("cpu.ticks", () => [new Measurement<long>(42, new KeyValuePair<string, object?>("core", 1))]);
        registry.CreateObservableUpDownCounter("drift", () => [new Measurement<double>(-1.5)]);
        registry.CreateObservableGauge("memory", () => [new Measurement<long>(9)], "By");
        registry.CreateObservableGauge("silent", () => (IEnumerable<Measurement<long>>)[]);
        PartitionedHistogram latency = registry.CreateHistogram("latency", "ms", "Latency", [1, 10]);
        latency.Record(0.5);
        latency.Record(5);
        latency.Record(50L);
        PartitionedExponentialHistogram sizes = registry.CreateExponentialHistogram("sizes", "By");
        double[] sizeValues = [1.0, 3.0, 100, 100];
        foreach (double value in sizeValues)
        {
            sizes.Record(value);
        }

        sizes.Record(1.0 / 4096);
        OperationData query = registry.CreateOperationData("db.query", "Queries", [0.1, 1]);
        query.Record(TimeSpan.FromMilliseconds(50), new KeyValuePair<string, object?>("db", "main"));
        query.Record(TimeSpan.FromSeconds(2), new KeyValuePair<string, object?>("db", "main"));
        registry.CreateOperationData("job").Record(TimeSpan.FromSeconds(1));

        var time = new ManualTime(s_now);
        var collector = new OtlpMetricsCollector(() => [new OtlpScope("shop", "2.0", registry)], s_resource, OtlpTemporality.Cumulative, timeProvider: time);
        OtlpExportBatch batch = collector.Collect();
        ExportMetricsServiceRequest request = Parse(batch);

        ResourceMetrics resourceMetrics = Assert.Single(request.ResourceMetrics);
        Assert.Equal(
            "deployment.tier=i:3,host.tags=[s:a;s:b],service.instance.id=s:i-1,service.name=s:checkout,service.version=s:1.2.3",
            Attributes(resourceMetrics.Resource.Attributes));
        ScopeMetrics scope = Assert.Single(resourceMetrics.ScopeMetrics);
        Assert.Equal(("shop", "2.0"), (scope.Scope.Name, scope.Scope.Version));
        Assert.Equal(
            ["http.requests", "io.bytes", "queue.length", "balance", "threads", "temperature", "cpu.ticks", "drift", "memory", "latency", "sizes", "db.query", "job"],
            scope.Metrics.Select(m => m.Name));

        ulong now = ManualTime.UnixNano(s_now);
        var all = scope.Metrics.ToDictionary(m => m.Name);
        foreach (Instrument instrument in registry.Instruments.Where(i => all.ContainsKey(i.Name)))
        {
            Metric metric = all[instrument.Name];
            Assert.Equal(instrument.Unit ?? string.Empty, metric.Unit);
            Assert.Equal(instrument.Description ?? string.Empty, metric.Description);
            ulong created = ManualTime.UnixNano(instrument.CreatedAt);
            foreach ((ulong start, ulong at) in StartsAndTimes(metric))
            {
                Assert.Equal((created, now), (start, at));
            }
        }

        Sum counter = all["http.requests"].Sum;
        Assert.True(counter.IsMonotonic);
        Assert.Equal(AggregationTemporality.Cumulative, counter.AggregationTemporality);
        Assert.Equal(5, Point(counter.DataPoints, "code=i:200,method=s:GET").AsInt);
        Assert.Equal(2, Point(counter.DataPoints, "method=s:POST,ok=b:True,ratio=d:0.5").AsInt);
        Assert.Equal(1.5, Assert.Single(all["io.bytes"].Sum.DataPoints).AsDouble);
        Assert.True(all["io.bytes"].Sum.IsMonotonic);

        Sum upDown = all["queue.length"].Sum;
        Assert.False(upDown.IsMonotonic);
        Assert.Equal(AggregationTemporality.Cumulative, upDown.AggregationTemporality);
        Assert.Equal(-2, Assert.Single(upDown.DataPoints).AsInt);
        Assert.Equal(-0.25, Assert.Single(all["balance"].Sum.DataPoints).AsDouble);
        Assert.Equal(7, Point(all["threads"].Gauge.DataPoints, "pool=s:io").AsInt);
        Assert.Equal(21.5, Assert.Single(all["temperature"].Gauge.DataPoints).AsDouble);

        Assert.True(all["cpu.ticks"].Sum.IsMonotonic);
        Assert.Equal(42, Point(all["cpu.ticks"].Sum.DataPoints, "core=i:1").AsInt);
        Assert.False(all["drift"].Sum.IsMonotonic);
        Assert.Equal(-1.5, Assert.Single(all["drift"].Sum.DataPoints).AsDouble);
        Assert.Equal(9, Assert.Single(all["memory"].Gauge.DataPoints).AsInt);

        HistogramDataPoint histogram = Assert.Single(all["latency"].Histogram.DataPoints);
        Assert.Equal(AggregationTemporality.Cumulative, all["latency"].Histogram.AggregationTemporality);
        Assert.Equal([1.0, 10.0], histogram.ExplicitBounds);
        Assert.Equal([1UL, 1UL, 1UL], histogram.BucketCounts);
        Assert.Equal((3UL, 55.5), (histogram.Count, histogram.Sum));
        Assert.False(histogram.HasMin);
        Assert.False(histogram.HasMax);
        Assert.Empty(histogram.Exemplars);

        ExponentialHistogramDataPoint exponential = Assert.Single(all["sizes"].ExponentialHistogram.DataPoints);
        Assert.Equal(AggregationTemporality.Cumulative, all["sizes"].ExponentialHistogram.AggregationTemporality);
        Assert.Equal((PartitionedExponentialHistogram.DefaultScale, 5UL, 1UL, sizeValues.Sum() + (1.0 / 4096)), (exponential.Scale, exponential.Count, exponential.ZeroCount, exponential.Sum));
        Assert.Equal(sizes.ZeroThreshold, exponential.ZeroThreshold);
        Assert.Equal(sizeValues.CountBy(v => v).OrderBy(g => g.Key).Select(g => ((ulong)g.Value, g.Key)), PositiveBuckets(exponential).Select(b => (b.Count, ValueIn(b, sizeValues))));

        HistogramDataPoint operation = Assert.Single(all["db.query"].Histogram.DataPoints);
        Assert.Equal("db=s:main", Attributes(operation.Attributes));
        Assert.Equal("s", all["db.query"].Unit);
        Assert.Equal([0.1, 1.0], operation.ExplicitBounds);
        Assert.Equal([1UL, 0UL, 1UL], operation.BucketCounts);
        Assert.Equal(2UL, operation.Count);
        Assert.Equal(2.05, operation.Sum, 6);
        HistogramDataPoint job = Assert.Single(all["job"].Histogram.DataPoints);
        Assert.Equal((1UL, 1.0), (job.Count, job.Sum));
        Assert.Empty(job.BucketCounts);
        Assert.Empty(job.ExplicitBounds);

        Assert.Equal(14, batch.DataPointCount);
        Assert.Equal(batch.DataPointCount, scope.Metrics.Sum(m => StartsAndTimes(m).Count()));
    }

    [Fact]
    public void ExemplarsCarryTheirValueTimeTraceAndSpan()
    {
        var registry = new MetricRegistry(new MetricRegistryOptions { ExemplarFilter = ExemplarFilter.TraceBased });
        PartitionedCounter counter = registry.CreateCounter("requests");
        PartitionedHistogram histogram = registry.CreateHistogram("latency", "s", null, [0.5, 1]);
        using var activity = new Activity("test");
        activity.SetIdFormat(ActivityIdFormat.W3C);
        activity.ActivityTraceFlags = ActivityTraceFlags.Recorded;
        DateTimeOffset before = DateTimeOffset.UtcNow;
        using (activity.Start())
        {
            counter.Add(3);
            histogram.Record(5.0);
        }

        DateTimeOffset after = DateTimeOffset.UtcNow;
        var collector = new OtlpMetricsCollector(() => [new OtlpScope("m", null, registry)], [], OtlpTemporality.Cumulative);
        ExportMetricsServiceRequest request = Parse(collector.Collect());

        ProtoExemplar counterExemplar = Assert.Single(Assert.Single(Metric(request, "requests").Sum.DataPoints).Exemplars);
        Assert.Equal(3, counterExemplar.AsInt);
        AssertExemplar(counterExemplar, activity, before, after);
        HistogramDataPoint point = Assert.Single(Metric(request, "latency").Histogram.DataPoints);
        ProtoExemplar bucketExemplar = Assert.Single(point.Exemplars);
        Assert.Equal(5.0, bucketExemplar.AsDouble);
        AssertExemplar(bucketExemplar, activity, before, after);
        Assert.Empty(Assert.Single(request.ResourceMetrics).Resource.Attributes);
        Assert.Equal(string.Empty, Assert.Single(request.ResourceMetrics[0].ScopeMetrics).Scope.Version);
    }

    [Fact]
    public void TheOverflowSeriesKeepsItsAttribute()
    {
        var registry = new MetricRegistry(new MetricRegistryOptions { MaxSeriesPerInstrument = 2 });
        PartitionedCounter counter = registry.CreateCounter("requests");
        for (int i = 0; i < 4; i++)
        {
            counter.Add(1, new KeyValuePair<string, object?>("user", (long)i));
        }

        var collector = new OtlpMetricsCollector(() => [new OtlpScope("m", null, registry)], [], OtlpTemporality.Cumulative);
        Sum sum = Metric(Parse(collector.Collect()), "requests").Sum;

        long overflowed = Point(sum.DataPoints, "otel.metric.overflow=b:True").AsInt;
        Assert.Equal(4, sum.DataPoints.Sum(p => p.AsInt));
        Assert.True(overflowed >= 2);
    }

    [Fact]
    public void ScopesEachCarryTheirRegistryAndEmptyOnesAreLeftOut()
    {
        var first = new MetricRegistry();
        first.CreateCounter("a").Add(1);
        var second = new MetricRegistry();
        second.CreateCounter("a").Add(2);
        var empty = new MetricRegistry();
        empty.CreateCounter("unused");
        var collector = new OtlpMetricsCollector(
            () => [new OtlpScope("first", "1", first), new OtlpScope("empty", null, empty), new OtlpScope("second", null, second)],
            [new("service.name", "s"), new("absent", null)],
            OtlpTemporality.Cumulative);

        // Twice: the second collection reuses the buffer and the series' encoded attributes.
        collector.Collect();
        ExportMetricsServiceRequest request = Parse(collector.Collect());

        ResourceMetrics resource = Assert.Single(request.ResourceMetrics);
        Assert.Equal("service.name=s:s", Attributes(resource.Resource.Attributes));
        Assert.Equal(
            [("first", "1", 1L), ("second", string.Empty, 2L)],
            resource.ScopeMetrics.Select(s => (s.Scope.Name, s.Scope.Version, Assert.Single(Assert.Single(s.Metrics).Sum.DataPoints).AsInt)));
    }

    [Fact]
    public void LargeMessagesKeepTheirLengths()
    {
        // Many series and long tag values: lengths of one, two and three varint bytes, nested.
        var registry = new MetricRegistry(new MetricRegistryOptions { MaxSeriesPerInstrument = 3000 });
        PartitionedCounter counter = registry.CreateCounter("requests");
        for (int i = 0; i < 2000; i++)
        {
            counter.Add(i + 1, new KeyValuePair<string, object?>("route", new string('r', i % 300)), new KeyValuePair<string, object?>("i", (long)i));
        }

        var collector = new OtlpMetricsCollector(() => [new OtlpScope("m", null, registry)], [], OtlpTemporality.Cumulative);
        OtlpExportBatch batch = collector.Collect();
        Sum sum = Metric(Parse(batch), "requests").Sum;

        Assert.Equal(2000, batch.DataPointCount);
        Assert.Equal(Enumerable.Range(1, 2000).Select(i => (long)i), sum.DataPoints.Select(p => p.AsInt).Order());
        Assert.All(sum.DataPoints, p => Assert.Equal(new string('r', (int)(p.AsInt - 1) % 300), p.Attributes.Single(a => a.Key == "route").Value.StringValue));
    }

    [Fact]
    public void ACollectionAllocatesNothingPerDataPointBeyondTheRegistrysReadings()
    {
        (PartitionedCounter counter, PartitionedHistogram histogram, OtlpMetricsCollector collector) = CountersAndHistograms(2000);

        // The first collections encode each series' attributes and grow the buffer; later ones reuse both.
        collector.Collect().Commit();
        collector.Collect().Commit();
        var extras = new List<long>();
        for (int round = 0; round < 3; round++)
        {
            long readings = Allocated(() => (counter.Collect(), histogram.Collect()));
            long export = Allocated(() => collector.Collect().Commit());
            extras.Add(export - readings);
        }

        // A message object per data point would be at least 24 bytes each: 96,000 bytes here.
        Assert.InRange(extras.Min(), long.MinValue, 4096);
    }

    [Fact]
    public void ASteadyCollectionOfCountersAndHistogramsAllocatesNothingPerSeries()
    {
        (PartitionedCounter counter, _, OtlpMetricsCollector collector) = CountersAndHistograms(2000);

        // The first collections encode each series' attributes and grow the kept arrays and buffer; later ones reuse them all.
        collector.Collect().Commit();
        collector.Collect().Commit();
        long least = long.MaxValue;
        for (int round = 0; round < 3; round++)
        {
            counter.Add(1, new KeyValuePair<string, object?>("i", (long)round));
            least = Math.Min(least, Allocated(() => collector.Collect().Commit()));
        }

        // A reading per series (counters and histograms alike) would be at least 24 bytes each: 96,000 bytes here.
        Assert.InRange(least, 0, 4096);
    }

    private static long Allocated(Action action)
    {
        long before = GC.GetAllocatedBytesForCurrentThread();
        action();
        return GC.GetAllocatedBytesForCurrentThread() - before;
    }

    private static long Allocated<T>(Func<T> action) => Allocated(() => { _ = action(); });

    [Fact]
    public void AFailingCallbackLeavesOutItsInstrumentOnly()
    {
        var registry = new MetricRegistry();
        registry.CreateObservableCounter("broken", IEnumerable<Measurement<long>> () => throw new InvalidOperationException("down"));
        registry.CreateCounter("fine").Add(1);
        var logger = new ListLogger();
        var collector = new OtlpMetricsCollector(() => [new OtlpScope("m", null, registry)], [], OtlpTemporality.Cumulative, logger);

        ExportMetricsServiceRequest request = Parse(collector.Collect());

        Assert.False(HasMetric(request, "broken"));
        Assert.Equal(1, Assert.Single(Metric(request, "fine").Sum.DataPoints).AsInt);
        Assert.Contains(logger.Messages, m => m.Contains("'broken'", StringComparison.Ordinal));
    }

    // As the scrape logs it: once per cause of each instrument, not at every export with its stack.
    [Fact]
    public void AFailingCallbackIsLoggedOncePerCause()
    {
        var registry = new MetricRegistry();
        string cause = "down";
        registry.CreateObservableCounter("broken", IEnumerable<Measurement<long>> () => throw new InvalidOperationException(cause));
        var logger = new ListLogger();
        var collector = new OtlpMetricsCollector(() => [new OtlpScope("m", null, registry)], [], OtlpTemporality.Cumulative, logger);

        for (int i = 0; i < 3; i++)
        {
            Assert.False(HasMetric(Parse(collector.Collect()), "broken"));
        }

        cause = "still down";
        for (int i = 0; i < 3; i++)
        {
            Assert.False(HasMetric(Parse(collector.Collect()), "broken"));
        }

        Assert.Equal(2, logger.Events.Count);
        Assert.All(logger.Events, e => Assert.Equal((20, LogLevel.Warning), (e.EventId.Id, e.Level)));
        Assert.Contains("InvalidOperationException: down.", logger.Messages[0], StringComparison.Ordinal);
        Assert.Contains("InvalidOperationException: still down.", logger.Messages[1], StringComparison.Ordinal);
        Assert.All(logger.Entries, e => Assert.IsType<InvalidOperationException>(e.Exception));
    }

    [Fact]
    public void ACollectionStartedDuringAnotherIsRefused()
    {
        var registry = new MetricRegistry();
        OtlpMetricsCollector collector = null!;
        string? refusal = null;
        registry.CreateObservableGauge("reentrant", () =>
        {
            refusal = Assert.Throws<InvalidOperationException>(() => collector.Collect()).Message;
            return [new Measurement<long>(1)];
        });
        collector = new OtlpMetricsCollector(() => [new OtlpScope("m", null, registry)], [], OtlpTemporality.Cumulative);

        ExportMetricsServiceRequest request = Parse(collector.Collect());

        Assert.Contains("already under way", refusal, StringComparison.Ordinal);
        Assert.Equal(1, Assert.Single(Metric(request, "reentrant").Gauge.DataPoints).AsInt);
        Assert.True(HasMetric(Parse(collector.Collect()), "reentrant"));
    }

    [Fact]
    public void BadArgumentsAreRefusedByName()
    {
        Assert.Equal("scopes", Assert.Throws<ArgumentNullException>(() => new OtlpMetricsCollector(null!, [], OtlpTemporality.Delta)).ParamName);
        Assert.Equal("resourceAttributes", Assert.Throws<ArgumentNullException>(() => new OtlpMetricsCollector(() => [], null!, OtlpTemporality.Delta)).ParamName);
        Assert.Equal("temporality", Assert.Throws<ArgumentOutOfRangeException>(() => new OtlpMetricsCollector(() => [], [], (OtlpTemporality)7)).ParamName);
    }

    private static IEnumerable<(ulong Start, ulong Time)> StartsAndTimes(Metric metric) => metric.DataCase switch
    {
        DataCase.Sum => metric.Sum.DataPoints.Select(p => (p.StartTimeUnixNano, p.TimeUnixNano)),
        DataCase.Gauge => metric.Gauge.DataPoints.Select(p => (p.StartTimeUnixNano, p.TimeUnixNano)),
        DataCase.Histogram => metric.Histogram.DataPoints.Select(p => (p.StartTimeUnixNano, p.TimeUnixNano)),
        DataCase.ExponentialHistogram => metric.ExponentialHistogram.DataPoints.Select(p => (p.StartTimeUnixNano, p.TimeUnixNano)),
        _ => throw new InvalidOperationException(metric.DataCase.ToString()),
    };

    // Each non-empty positive bucket: its count, and the range (base^i, base^(i+1)] it covers.
    internal static IEnumerable<(ulong Count, double Lower, double Upper)> PositiveBuckets(ExponentialHistogramDataPoint point)
    {
        double factor = Math.Pow(2, -point.Scale);
        for (int j = 0; j < point.Positive.BucketCounts.Count; j++)
        {
            if (point.Positive.BucketCounts[j] != 0)
            {
                int index = point.Positive.Offset + j;
                yield return (point.Positive.BucketCounts[j], Math.Pow(2, index * factor), Math.Pow(2, (index + 1) * factor));
            }
        }
    }

    // The one recorded value the bucket's range holds.
    private static double ValueIn((ulong Count, double Lower, double Upper) bucket, double[] values) =>
        Assert.Single(values.Distinct(), v => v > bucket.Lower * (1 + 1e-12) && v <= bucket.Upper * (1 + 1e-12));

    private static void AssertExemplar(ProtoExemplar exemplar, Activity activity, DateTimeOffset before, DateTimeOffset after)
    {
        Assert.Equal(activity.TraceId.ToHexString(), Convert.ToHexStringLower(exemplar.TraceId.Span));
        Assert.Equal(activity.SpanId.ToHexString(), Convert.ToHexStringLower(exemplar.SpanId.Span));
        Assert.InRange(exemplar.TimeUnixNano, ManualTime.UnixNano(before), ManualTime.UnixNano(after));
        Assert.Empty(exemplar.FilteredAttributes);
    }

    // A delta collector of one registry with a counter and a histogram of `series` series each.
    private static (PartitionedCounter Counter, PartitionedHistogram Histogram, OtlpMetricsCollector Collector) CountersAndHistograms(int series)
    {
        var registry = new MetricRegistry(new MetricRegistryOptions { MaxSeriesPerInstrument = series });
        PartitionedCounter counter = registry.CreateCounter("requests");
        PartitionedHistogram histogram = registry.CreateHistogram("latency");
        for (int i = 0; i < series; i++)
        {
            counter.Add(1, new KeyValuePair<string, object?>("i", (long)i));
            histogram.Record(i, new KeyValuePair<string, object?>("i", (long)i));
        }

        return (counter, histogram, new OtlpMetricsCollector(() => [new OtlpScope("m", null, registry)], [], OtlpTemporality.Delta));
    }
}
