using System.Diagnostics.Metrics;
using System.Runtime.CompilerServices;
using global::OpenTelemetry;
using global::OpenTelemetry.Metrics;
using Microsoft.Extensions.Logging;

namespace ScalableMetrics.Exporter.Tests.Listening;

/// <summary>The MeterListener path: each System.Diagnostics.Metrics kind lands, exactly, in a registry instrument of its kind.</summary>
public sealed class MeterListenerTests
{
    private const int Threads = 4;
    private const int PerThread = 20_000;
    private static readonly KeyValuePair<string, object?> s_route = new("http.route", "/hello");

    [Fact]
    public void CounterOfLongIsExactUnderConcurrentWritersAndReads()
    {
        using var listened = new ListenedMeter();
        Counter<long> counter = listened.Meter.CreateCounter<long>("requests", "{request}", "Requests.");
        PartitionedCounter target = listened.Instrument<PartitionedCounter>("requests");
        long lastRead = 0;
        ConcurrentWriters.Run(
            Threads,
            t =>
            {
                for (int i = 0; i < PerThread; i++)
                {
                    counter.Add(1);
                    counter.Add(2, s_route);
                }
            },
            () =>
            {
                long read = target.Collect().Sum(r => r.Value);
                Assert.True(read >= lastRead, $"A read went down: {read} after {lastRead}.");
                lastRead = read;
            });

        Assert.Equal("{request}", target.Unit);
        Assert.Equal("Requests.", target.Description);
        Assert.Equal(Threads * PerThread, target.Collect().Single(r => r.Tags.Count == 0).Value);
        Assert.Equal(2L * Threads * PerThread, target.Collect().Single(r => r.Tags.Count == 1).Value);
    }

    [Fact]
    public void CounterOfDoubleIsExactUnderConcurrentWritersAndReads()
    {
        using var listened = new ListenedMeter();
        Counter<double> counter = listened.Meter.CreateCounter<double>("bytes");
        PartitionedDoubleCounter target = listened.Instrument<PartitionedDoubleCounter>("bytes");
        ConcurrentWriters.Run(
            Threads,
            _ =>
            {
                for (int i = 0; i < PerThread; i++)
                {
                    counter.Add(0.25, s_route);
                }
            },
            () => Assert.True(target.Collect().Sum(r => r.Value) <= 0.25 * Threads * PerThread));

        Assert.Equal(0.25 * Threads * PerThread, target.Collect().Single().Value);
    }

    [Fact]
    public void UpDownCounterOfIntIsExactUnderConcurrentWritersAndReads()
    {
        using var listened = new ListenedMeter();
        UpDownCounter<int> counter = listened.Meter.CreateUpDownCounter<int>("in_flight");
        PartitionedUpDownCounter target = listened.Instrument<PartitionedUpDownCounter>("in_flight");
        ConcurrentWriters.Run(
            Threads,
            _ =>
            {
                for (int i = 0; i < PerThread; i++)
                {
                    counter.Add(3, s_route);
                    counter.Add(-1, s_route);
                }
            },
            () => _ = target.Collect());

        Assert.Equal(2L * Threads * PerThread, target.Collect().Single().Value);
    }

    [Fact]
    public void HistogramOfDoubleTakesTheAdvisedBoundariesAndIsExactUnderConcurrentWriters()
    {
        using var listened = new ListenedMeter();
        Histogram<double> histogram = listened.Meter.CreateHistogram("duration", "s", null, tags: null, new InstrumentAdvice<double> { HistogramBucketBoundaries = [0.1, 1] });
        PartitionedHistogram target = listened.Instrument<PartitionedHistogram>("duration");
        Assert.Equal([0.1, 1], target.Boundaries);
        ConcurrentWriters.Run(
            Threads,
            _ =>
            {
                for (int i = 0; i < PerThread; i++)
                {
                    histogram.Record(0.05, s_route);
                    histogram.Record(0.5, s_route);
                    histogram.Record(5);
                }
            },
            () =>
            {
                foreach (HistogramReading reading in target.Collect())
                {
                    Assert.Equal(reading.Count, reading.BucketCounts.Sum());
                }
            });

        HistogramReading tagged = target.Collect().Single(r => r.Tags.Count == 1);
        Assert.Equal([Threads * PerThread, Threads * PerThread, 0], tagged.BucketCounts);
        Assert.Equal(0.55 * Threads * PerThread, tagged.Sum, 6);
        Assert.Equal([0, 0, Threads * PerThread], target.Collect().Single(r => r.Tags.Count == 0).BucketCounts);
    }

    [Fact]
    public void HistogramWithoutAdviceTakesTheDefaultBoundaries()
    {
        using var listened = new ListenedMeter();
        listened.Meter.CreateHistogram<long>("size");
        Assert.Equal(PartitionedHistogram.DefaultBoundaries, listened.Instrument<PartitionedHistogram>("size").Boundaries);
    }

    // OpenTelemetry's SDK is the oracle (docs/migrating-from-opentelemetry-prometheus.md: "A
    // histogram keeps the boundaries its instrument advises, or OpenTelemetry's default ones, as
    // OpenTelemetry's SDK chooses them"; "Names and labels are the same for the same instrument").
    [Fact]
    public void HistogramOfFloatTakesTheAdvisedBoundariesAsOpenTelemetryReadsThem()
    {
        using var listened = new ListenedMeter();
        using MeterProvider provider = OpenTelemetryOf(listened.Name, out List<Metric> exported);
        listened.Meter.CreateHistogram("float.duration", "s", null, tags: null, new InstrumentAdvice<float> { HistogramBucketBoundaries = [0.1f, 0.25f] }).Record(0.2f);

        double[] theirs = OpenTelemetryBoundaries(provider, exported);
        Assert.Equal([0.1, 0.25], theirs);
        Assert.Equal(theirs, listened.Instrument<PartitionedHistogram>("float.duration").Boundaries);
    }

    // OpenTelemetry buckets a Histogram<float> by the widened boundaries and exports the shortest
    // ones: a measurement equal to a boundary counts in that boundary's bucket, though 0.1f as a
    // double is above the exported 0.1.
    [Fact]
    public void HistogramOfFloatCountsAMeasurementAtAnAdvisedBoundaryInItsBucketAsOpenTelemetryDoes()
    {
        using var listened = new ListenedMeter();
        using MeterProvider provider = OpenTelemetryOf(listened.Name, out List<Metric> exported);
        Histogram<float> histogram = listened.Meter.CreateHistogram("float.latency", "s", null, tags: null, new InstrumentAdvice<float> { HistogramBucketBoundaries = [0.1f, 0.25f, 0.5f] });
        foreach (float value in (float[])[0.1f, 0.2f, 0.25f, 0.3f, 0.5f, 0.7f])
        {
            histogram.Record(value);
        }

        Assert.True(provider.ForceFlush());
        MetricPoint point = Assert.Single(ToList(Assert.Single(exported).GetMetricPoints()));
        var theirs = new List<long>();
        foreach (HistogramBucket bucket in point.GetHistogramBuckets())
        {
            theirs.Add(bucket.BucketCount);
        }

        HistogramReading ours = Assert.Single(listened.Instrument<PartitionedHistogram>("float.latency").Collect());
        Assert.Equal([1L, 2, 2, 1], theirs);
        Assert.Equal(theirs, ours.BucketCounts);
        Assert.Equal(point.GetHistogramSum(), ours.Sum);
    }

    [Fact]
    public void HistogramAdvisingAnInfiniteLastBoundaryKeepsItsFiniteBoundariesAsOpenTelemetryDoes()
    {
        using var listened = new ListenedMeter();
        using MeterProvider provider = OpenTelemetryOf(listened.Name, out List<Metric> exported);
        listened.Meter.CreateHistogram("queue.wait", "s", null, tags: null, new InstrumentAdvice<double> { HistogramBucketBoundaries = [0.1, 1, double.PositiveInfinity] }).Record(0.3);

        double[] theirs = OpenTelemetryBoundaries(provider, exported);
        Assert.Equal([0.1, 1], theirs);
        Assert.Equal(theirs, listened.Instrument<PartitionedHistogram>("queue.wait").Boundaries);
    }

    [Fact]
    public void HistogramOfFloatAdvisingInfiniteFirstAndLastBoundariesKeepsItsFiniteOnesAsOpenTelemetryDoes()
    {
        using var listened = new ListenedMeter();
        using MeterProvider provider = OpenTelemetryOf(listened.Name, out List<Metric> exported);
        Histogram<float> histogram = listened.Meter.CreateHistogram("float.wait", "s", null, tags: null, new InstrumentAdvice<float> { HistogramBucketBoundaries = [float.NegativeInfinity, 0.1f, 1f, float.PositiveInfinity] });
        foreach (float value in (float[])[-5f, 0.1f, 0.5f, 3f])
        {
            histogram.Record(value);
        }

        double[] theirs = OpenTelemetryBoundaries(provider, exported);
        Assert.Equal([0.1, 1], theirs);
        HistogramReading ours = Assert.Single(listened.Instrument<PartitionedHistogram>("float.wait").Collect());
        Assert.Equal(theirs, ours.Boundaries);
        Assert.Equal([2L, 1, 1], ours.BucketCounts);
    }

    // A known difference (docs/listening.md): OpenTelemetry exports advice of no boundaries as a
    // histogram of no bucket at all (only _sum and _count), which a registry histogram, of at least
    // one boundary, cannot be; the listener takes the default boundaries, with the same sum and count.
    [Fact]
    public void HistogramAdvisingNoBoundariesTakesTheDefaultOnesWhereOpenTelemetryHasNoBucket()
    {
        using var listened = new ListenedMeter();
        using MeterProvider provider = OpenTelemetryOf(listened.Name, out List<Metric> exported);
        Histogram<double> histogram = listened.Meter.CreateHistogram("no.buckets", "s", null, tags: null, new InstrumentAdvice<double> { HistogramBucketBoundaries = [] });
        histogram.Record(3);
        histogram.Record(0.5);

        Assert.True(provider.ForceFlush());
        MetricPoint point = Assert.Single(ToList(Assert.Single(exported).GetMetricPoints()));
        var theirBuckets = new List<HistogramBucket>();
        foreach (HistogramBucket bucket in point.GetHistogramBuckets())
        {
            theirBuckets.Add(bucket);
        }

        Assert.Empty(theirBuckets);
        PartitionedHistogram target = listened.Instrument<PartitionedHistogram>("no.buckets");
        Assert.Equal(PartitionedHistogram.DefaultBoundaries, target.Boundaries);
        HistogramReading ours = Assert.Single(target.Collect());
        Assert.Equal((point.GetHistogramCount(), point.GetHistogramSum()), (ours.Count, ours.Sum));
    }

    private static List<MetricPoint> ToList(MetricPointsAccessor points)
    {
        var list = new List<MetricPoint>();
        foreach (ref readonly MetricPoint point in points)
        {
            list.Add(point);
        }

        return list;
    }

    private static MeterProvider OpenTelemetryOf(string meterName, out List<Metric> exported)
    {
        exported = [];
        return Sdk.CreateMeterProviderBuilder().AddMeter(meterName).AddInMemoryExporter(exported).Build()!;
    }

    // The finite explicit bounds of the one histogram OpenTelemetry exported (its last bucket's bound is +∞).
    private static double[] OpenTelemetryBoundaries(MeterProvider provider, List<Metric> exported)
    {
        Assert.True(provider.ForceFlush());
        var bounds = new List<double>();
        foreach (ref readonly MetricPoint point in Assert.Single(exported).GetMetricPoints())
        {
            foreach (HistogramBucket bucket in point.GetHistogramBuckets())
            {
                if (double.IsFinite(bucket.ExplicitBound) && !bounds.Contains(bucket.ExplicitBound))
                {
                    bounds.Add(bucket.ExplicitBound);
                }
            }
        }

        return [.. bounds];
    }

    [Fact]
    public void GaugeOfLongKeepsTheLastValueSetUnderConcurrentWriters()
    {
        using var listened = new ListenedMeter();
        Gauge<long> gauge = listened.Meter.CreateGauge<long>("queue.length");
        Gauge target = listened.Instrument<Gauge>("queue.length");
        ConcurrentWriters.Run(
            Threads,
            t =>
            {
                for (int i = 0; i < PerThread; i++)
                {
                    gauge.Record(t, s_route);
                }
            },
            () => Assert.All(target.Collect(), r => Assert.InRange(r.Value, 0, Threads - 1)));

        gauge.Record(42, s_route);
        Assert.Equal(42, target.Collect().Single().Value);
    }

    [Fact]
    public void ObservableGaugeIsReadAtCollectionWithConcurrentReaders()
    {
        using var listened = new ListenedMeter();
        long value = 0;
        listened.Meter.CreateObservableGauge("temperature", () => new Measurement<long>(Volatile.Read(ref value), s_route));
        ObservableGauge target = listened.Instrument<ObservableGauge>("temperature");
        ConcurrentWriters.Run(
            Threads,
            _ =>
            {
                for (int i = 0; i < 200; i++)
                {
                    double read = target.Collect().Single().Value;
                    Assert.InRange(read, 0, 1000);
                }
            },
            () => Interlocked.Exchange(ref value, Math.Min(1000, value + 1)));

        Volatile.Write(ref value, 7);
        DoubleReading reading = target.Collect().Single();
        Assert.Equal(7, reading.Value);
        Assert.Equal("/hello", reading.Tags.Single().Value);
    }

    [Fact]
    public void ObservableCounterAndUpDownCounterMapToTheirKinds()
    {
        using var listened = new ListenedMeter();
        listened.Meter.CreateObservableCounter("ticks", () => 12.5);
        listened.Meter.CreateObservableUpDownCounter("balance", () => -3);
        Assert.Equal(12.5, listened.Instrument<ObservableCounter>("ticks").Collect().Single().Value);
        Assert.True(listened.Instrument<ObservableCounter>("ticks").IsFloatingPoint);
        Assert.Equal(-3, listened.Instrument<ObservableUpDownCounter>("balance").Collect().Single().Value);
    }

    [Fact]
    public void EveryNumericTypeMapsToTheLongOrDoubleInstrument()
    {
        using var listened = new ListenedMeter();
        listened.Meter.CreateCounter<byte>("b").Add(200);
        listened.Meter.CreateCounter<short>("s").Add(30_000);
        listened.Meter.CreateCounter<int>("i").Add(2_000_000_000);
        listened.Meter.CreateCounter<long>("l").Add(long.MaxValue / 2);
        listened.Meter.CreateCounter<float>("f").Add(1.5f);
        listened.Meter.CreateCounter<double>("d").Add(2.25);
        listened.Meter.CreateCounter<decimal>("m").Add(3.75m);

        Assert.Equal(200, listened.Instrument<PartitionedCounter>("b").Collect().Single().Value);
        Assert.Equal(30_000, listened.Instrument<PartitionedCounter>("s").Collect().Single().Value);
        Assert.Equal(2_000_000_000, listened.Instrument<PartitionedCounter>("i").Collect().Single().Value);
        Assert.Equal(long.MaxValue / 2, listened.Instrument<PartitionedCounter>("l").Collect().Single().Value);
        Assert.Equal(1.5, listened.Instrument<PartitionedDoubleCounter>("f").Collect().Single().Value);
        Assert.Equal(2.25, listened.Instrument<PartitionedDoubleCounter>("d").Collect().Single().Value);
        Assert.Equal(3.75, listened.Instrument<PartitionedDoubleCounter>("m").Collect().Single().Value);

        listened.Meter.CreateUpDownCounter<short>("uds").Add(-5);
        listened.Meter.CreateUpDownCounter<float>("udf").Add(-0.5f);
        listened.Meter.CreateGauge<byte>("gb").Record(9);
        listened.Meter.CreateGauge<decimal>("gm").Record(0.5m);
        listened.Meter.CreateHistogram<int>("hi").Record(7);
        Assert.Equal(-5, listened.Instrument<PartitionedUpDownCounter>("uds").Collect().Single().Value);
        Assert.Equal(-0.5, listened.Instrument<PartitionedDoubleUpDownCounter>("udf").Collect().Single().Value);
        Assert.Equal(9, listened.Instrument<Gauge>("gb").Collect().Single().Value);
        Assert.Equal(0.5, listened.Instrument<DoubleGauge>("gm").Collect().Single().Value);
        Assert.Equal(7, listened.Instrument<PartitionedHistogram>("hi").Collect().Single().Sum);
    }

    [Fact]
    public void AnInstrumentCreatedAfterTheListenerStartedIsPickedUp()
    {
        using var listened = new ListenedMeter();
        Assert.Empty(listened.Host.Scopes);
        Counter<long> late = listened.Meter.CreateCounter<long>("late");
        late.Add(5);
        Assert.Equal(5, listened.Instrument<PartitionedCounter>("late").Collect().Single().Value);
    }

    [Fact]
    public void InstrumentTagsAndMeterTagsJoinEverySeriesAndAMeasuredTagWins()
    {
        using var listened = new ListenedMeter([new("service.tier", "edge"), new("zone", "meter")]);
        Counter<long> counter = listened.Meter.CreateCounter<long>("tagged", null, null, [new KeyValuePair<string, object?>("zone", "instrument")]);
        counter.Add(1);
        counter.Add(1, new KeyValuePair<string, object?>("zone", "measured"));

        PartitionedCounter target = listened.Instrument<PartitionedCounter>("tagged");
        Assert.Equal(2, target.Collect().Count);
        Assert.Contains(target.Collect(), r => r.Tags.Count == 2 && r.Tags.Any(t => t.Key == "zone" && (string)t.Value! == "instrument") && r.Tags.Any(t => t.Key == "service.tier"));
        Assert.Contains(target.Collect(), r => r.Tags.Count == 2 && r.Tags.Any(t => t.Key == "zone" && (string)t.Value! == "measured"));
    }

    [Fact]
    public void MeasurementsTheRegistryRefusesAreDroppedAndCountedNeverThrown()
    {
        using var listened = new ListenedMeter();
        Counter<long> counter = listened.Meter.CreateCounter<long>("drops");
        Histogram<double> histogram = listened.Meter.CreateHistogram<double>("drops.histogram");
        counter.Add(-1);
        counter.Add(1, new KeyValuePair<string, object?>("", "empty key"));
        histogram.Record(double.NaN);
        counter.Add(4);

        Assert.Equal(3, listened.Host.Drops.Count);
        Assert.Equal(4, listened.Instrument<PartitionedCounter>("drops").Collect().Single().Value);
        Assert.Equal(0, listened.Instrument<PartitionedHistogram>("drops.histogram").SeriesCount);
    }

    [Fact]
    public void AMeasuredTagWhoseValueIsNullIsLeftOutAndTheMeasurementIsKept()
    {
        using var listened = new ListenedMeter();
        Counter<long> counter = listened.Meter.CreateCounter<long>("nulls");
        counter.Add(2, new KeyValuePair<string, object?>("route", null));
        counter.Add(3);
        counter.Add(4, new KeyValuePair<string, object?>("route", null), new KeyValuePair<string, object?>("method", "GET"));
        counter.Add(5, new KeyValuePair<string, object?>("method", "GET"));

        // As OpenTelemetry keeps the measurement, and as Prometheus stores its route="": one series
        // with the tags left, never a second series that a scrape would show twice.
        PartitionedCounter target = listened.Instrument<PartitionedCounter>("nulls");
        Assert.Equal(0, listened.Host.Drops.Count);
        Assert.Equal(2, target.Collect().Count);
        Assert.Equal(5, target.Collect().Single(r => r.Tags.Count == 0).Value);
        Assert.Equal(9, target.Collect().Single(r => r.Tags.Count == 1 && (string)r.Tags[0].Value! == "GET").Value);

        // The registry's own API still refuses it.
        Assert.Throws<ArgumentException>(() => target.Add(1, new KeyValuePair<string, object?>("route", null)));
    }

    [Fact]
    public void AnInstrumentOrMeterTagWhoseValueIsNullIsLeftOutAndItsMeasurementsAreKept()
    {
        using var listened = new ListenedMeter([new("zone", "meter"), new("region", null)]);
        Histogram<double> histogram = listened.Meter.CreateHistogram<double>("null.sourced", null, null, [new KeyValuePair<string, object?>("zone", null), new KeyValuePair<string, object?>("owner", null)]);
        histogram.Record(1);
        histogram.Record(2, new KeyValuePair<string, object?>("route", "/a"));

        // A null is as if the tag were not given: the meter's zone is the one left, as it is where the instrument has none.
        PartitionedHistogram target = listened.Instrument<PartitionedHistogram>("null.sourced");
        Assert.Equal(0, listened.Host.Drops.Count);
        Assert.Equal(["zone=meter"], Tags(target.Collect().Single(r => r.Count == 1 && r.Sum == 1).Tags));
        Assert.Equal(["route=/a", "zone=meter"], Tags(target.Collect().Single(r => r.Count == 1 && r.Sum == 2).Tags));
    }

    [Fact]
    public void AnObservableReportWithANullTagValueIsKeptWithoutThatTag()
    {
        using var listened = new ListenedMeter();
        listened.Meter.CreateObservableGauge("null.observed", () => new[]
        {
            new Measurement<double>(4, new KeyValuePair<string, object?>("queue", null), new KeyValuePair<string, object?>("shard", 1)),
        });

        DoubleReading reading = Assert.Single(listened.Instrument<ObservableGauge>("null.observed").Collect());
        Assert.Equal(4.0, reading.Value);
        Assert.Equal(["shard=1"], Tags(reading.Tags));
        Assert.Equal(0, listened.Host.Drops.Count);
    }

    [Fact]
    public void AnInstrumentWhoseUnitIsOutsideOpenTelemetrysUnitSyntaxIsTakenAndRecorded()
    {
        string name = "test.listened." + Guid.NewGuid().ToString("N");
        var logger = new ListLogger();
        using var host = new ScalableMetrics.Exporter.Listening.MeterListenerHost([name], "ScalableMetrics", () => new MetricRegistry(), logger);
        host.Start();
        using var meter = new Meter(name);
        string longUnit = new('x', 64);
        meter.CreateGauge<double>("room.temperature", "°C").Record(21.5);
        meter.CreateCounter<long>("long.unit", longUnit).Add(3);
        meter.CreateObservableCounter("cpu.time", () => 7L, "µs");

        MetricRegistry registry = host.Scopes.Single().Registry;
        DoubleGauge gauge = registry.Instruments.OfType<DoubleGauge>().Single();
        Assert.Equal(21.5, gauge.Collect().Single().Value);
        Assert.Equal(3, registry.Instruments.OfType<PartitionedCounter>().Single().Collect().Single().Value);
        Assert.Equal(7, registry.Instruments.OfType<ObservableCounter>().Single().Collect().Single().Value);

        // Each non-ASCII character as '_', which exports as OpenTelemetry's Prometheus exporter
        // names it (room_temperature_C); one too long for any unit left out, as the
        // specification's Prometheus mapping omits a unit it cannot convert.
        Assert.Equal("_C", gauge.Unit);
        Assert.Null(registry.Instruments.OfType<PartitionedCounter>().Single().Unit);
        Assert.Equal("_s", registry.Instruments.OfType<ObservableCounter>().Single().Unit);
        Assert.Equal(0, host.Drops.Count);
        Assert.Equal(3, logger.Events.Count(e => e.EventId.Id == 25 && e.Level == LogLevel.Warning));
        Assert.Contains(logger.Events, e => e.EventId.Id == 25 && e.Message.Contains("'room.temperature'", StringComparison.Ordinal) && e.Message.Contains("'_C'", StringComparison.Ordinal));
        Assert.DoesNotContain(logger.Events, e => e.EventId.Id == 21);

        // The registry's own API still refuses the units.
        Assert.Equal("unit", Assert.Throws<ArgumentException>(() => registry.CreateDoubleGauge("other.temperature", "°C")).ParamName);
        Assert.Equal("unit", Assert.Throws<ArgumentException>(() => registry.CreateCounter("other.long", longUnit)).ParamName);
    }

    [Fact]
    public void WildcardsTakeMatchingMetersOnly()
    {
        string prefix = "test.wildcard." + Guid.NewGuid().ToString("N");
        using var host = new ScalableMetrics.Exporter.Listening.MeterListenerHost([prefix + ".*"], "ScalableMetrics", () => new MetricRegistry(), Microsoft.Extensions.Logging.Abstractions.NullLogger.Instance);
        host.Start();
        using var taken = new Meter(prefix + ".Orders");
        using var left = new Meter(prefix + "Orders");
        taken.CreateCounter<long>("c").Add(1);
        left.CreateCounter<long>("c").Add(1);
        Assert.Equal([prefix + ".Orders"], host.Scopes.Select(s => s.MeterName));
        Assert.False(host.Takes("ScalableMetrics"));
    }

    // Both are exported without otel_scope_version: two scopes would write one series twice in a scrape.
    [Fact]
    public void AMeterOfNoVersionAndOneOfAnEmptyVersionAreOneScope()
    {
        string name = "test.versions." + Guid.NewGuid().ToString("N");
        using var host = new ScalableMetrics.Exporter.Listening.MeterListenerHost([name], "ScalableMetrics", () => new MetricRegistry(), Microsoft.Extensions.Logging.Abstractions.NullLogger.Instance);
        host.Start();
        using var none = new Meter(name);
        using var empty = new Meter(name, "");
        none.CreateCounter<long>("jobs").Add(1);
        empty.CreateCounter<long>("jobs").Add(2);

        ScalableMetrics.Exporter.Listening.ListenedScope scope = Assert.Single(host.Scopes);
        Assert.Null(scope.MeterVersion);
        Assert.Equal(3, scope.Registry.Instruments.OfType<PartitionedCounter>().Single(i => i.Name == "jobs").Collect().Single().Value);
    }

    [Fact]
    public void ADisposedMeterIsReleasedAndItsSeriesStayReadable()
    {
        using var listened = new ListenedMeter();
        WeakReference meter = CreateUseAndDisposeMeter(listened.Name);
        for (int i = 0; i < 5 && meter.IsAlive; i++)
        {
            GC.Collect();
            GC.WaitForPendingFinalizers();
        }

        Assert.False(meter.IsAlive, "The disposed meter is still reachable.");
        Assert.Equal(3, listened.Instrument<PartitionedCounter>("gone").Collect().Single().Value);
        Assert.Empty(listened.Instrument<ObservableGauge>("gone.gauge").Collect());
    }

    [Fact]
    public void ADisposedListenerStopsListeningAndKeepsItsSeries()
    {
        using var listened = new ListenedMeter();
        Counter<long> counter = listened.Meter.CreateCounter<long>("short.lived");
        counter.Add(2);
        Assert.True(counter.Enabled);
        listened.Host.Dispose();
        Assert.False(counter.Enabled);
        counter.Add(5);
        Assert.Equal(2, listened.Instrument<PartitionedCounter>("short.lived").Collect().Single().Value);
    }

    [Fact]
    public void AMeasurementAllocatesNothingOnceItsSeriesExists()
    {
        using var listened = new ListenedMeter();
        Counter<long> counter = listened.Meter.CreateCounter<long>("alloc.counter");
        Histogram<double> histogram = listened.Meter.CreateHistogram<double>("alloc.histogram");
        Counter<long> withSourceTags = listened.Meter.CreateCounter<long>("alloc.tagged", null, null, [new KeyValuePair<string, object?>("component", "x")]);
        KeyValuePair<string, object?> method = new("http.request.method", "GET");
        KeyValuePair<string, object?> status = new("http.response.status_code", 200);

        AllocationAssert.DoesNotAllocate(() => counter.Add(1));
        AllocationAssert.DoesNotAllocate(() => counter.Add(1, s_route));
        AllocationAssert.DoesNotAllocate(() => counter.Add(1, s_route, method, status));
        AllocationAssert.DoesNotAllocate(() => histogram.Record(0.2, s_route));
        AllocationAssert.DoesNotAllocate(() => withSourceTags.Add(1, s_route));
    }

    [Fact]
    public void AMeterCreatedAgainTakesOverItsObservableInstrumentsAndItsCounters()
    {
        using var listened = new ListenedMeter();
        var first = new Meter(listened.Name);
        first.CreateObservableGauge("queue.length", () => 1L);
        first.CreateObservableCounter("jobs.done", () => 5L);
        first.CreateCounter<long>("requests").Add(3);
        first.Dispose();

        using var second = new Meter(listened.Name);
        second.CreateObservableGauge("queue.length", () => 42L);
        second.CreateObservableCounter("jobs.done", () => 6L);
        second.CreateCounter<long>("requests").Add(4);

        // The new meter's callbacks report; the disposed meter's do not (its observable series are
        // not exported), and the counter's series goes on from where the first meter left it.
        Assert.Equal(42, listened.Instrument<ObservableGauge>("queue.length").Collect().Single().Value);
        Assert.Equal(6, listened.Instrument<ObservableCounter>("jobs.done").Collect().Single().Value);
        Assert.Equal(7, listened.Instrument<PartitionedCounter>("requests").Collect().Single().Value);
    }

    [Fact]
    public void TwoLiveMetersOfOneNameEachKeepTheirObservableInstruments()
    {
        using var listened = new ListenedMeter();
        using var other = new Meter(listened.Name);
        var a = new KeyValuePair<string, object?>("queue", "a");
        var b = new KeyValuePair<string, object?>("queue", "b");
        listened.Meter.CreateObservableGauge("queue.length", () => new Measurement<long>(1, a));
        other.CreateObservableGauge("queue.length", () => new Measurement<long>(2, b));
        listened.Meter.CreateObservableCounter("jobs.done", () => new Measurement<long>(5, a));
        other.CreateObservableCounter("jobs.done", () => new Measurement<long>(6, a));

        Dictionary<object, double> lengths = listened.Instrument<ObservableGauge>("queue.length").Collect().ToDictionary(r => r.Tags[0].Value!, r => r.Value);
        Assert.Equal(new Dictionary<object, double> { ["a"] = 1, ["b"] = 2 }, lengths);

        // One tag set reported by both: a counter's reports add up, as one callback's would.
        Assert.Equal(11, listened.Instrument<ObservableCounter>("jobs.done").Collect().Single().Value);

        other.Dispose();
        Assert.Equal(1, listened.Instrument<ObservableGauge>("queue.length").Collect().Single().Value);
        Assert.Equal(5, listened.Instrument<ObservableCounter>("jobs.done").Collect().Single().Value);
    }

    [Fact]
    public void AnObservableOfAnotherKindOrUnitUnderATakenNameIsStillRefused()
    {
        using var listened = new ListenedMeter();
        using var other = new Meter(listened.Name);
        listened.Meter.CreateObservableGauge("level", () => 1L, "By");
        other.CreateObservableCounter("level", () => 2L, "By");
        other.CreateObservableGauge("level", () => 3L, "s");
        other.CreateObservableGauge("level", () => 4.5, "By");

        ObservableGauge level = listened.Instrument<ObservableGauge>("level");
        Assert.Equal(1, level.Collect().Single().Value);
        Assert.Single(listened.Host.Scopes.Single().Registry.Instruments);
    }

    // docs/listening.md: "A measurement the registry would refuse (a negative counter increment, a
    // NaN, a bad tag) is dropped, counted and logged once per instrument". An observable
    // instrument's report is such a measurement: the refused one is dropped, not its callback's others.
    [Fact]
    public void AnObservableReportTheRegistryRefusesIsDroppedAndCountedAndTheOtherReportsAreKept()
    {
        using var listened = new ListenedMeter();
        listened.Meter.CreateObservableCounter("jobs.done", () => new[]
        {
            new Measurement<long>(5, new KeyValuePair<string, object?>("queue", "a")),
            new Measurement<long>(-1, new KeyValuePair<string, object?>("queue", "b")),
        });
        listened.Meter.CreateObservableGauge("queue.length", () => new[]
        {
            new Measurement<long>(3, new KeyValuePair<string, object?>("queue", "a")),
            new Measurement<long>(4, new KeyValuePair<string, object?>("le", "b")),
        });

        DoubleReading done = Assert.Single(listened.Instrument<ObservableCounter>("jobs.done").Collect());
        DoubleReading length = Assert.Single(listened.Instrument<ObservableGauge>("queue.length").Collect());

        Assert.Equal((5, "a"), (done.Value, done.Tags.Single().Value));
        Assert.Equal((3, "a"), (length.Value, length.Tags.Single().Value));
        Assert.Equal(2, listened.Host.Drops.Count);
    }

    // docs/listening.md: "Two live meters of one name and version each keep their observable
    // instruments". One meter's failing callback is that meter's failure; its twin's reports are
    // still the twin's (as the rules' listener keeps them, ObservablePull's remarks).
    [Fact]
    public void TwoLiveMetersOfOneNameKeepTheReportsOfOneWhenTheOthersCallbackThrows()
    {
        using var listened = new ListenedMeter();
        using var other = new Meter(listened.Name);
        listened.Meter.CreateObservableGauge("queue.length", () => new Measurement<long>(1, new KeyValuePair<string, object?>("queue", "a")));
        other.CreateObservableGauge<long>("queue.length", new Func<long>(() => throw new InvalidOperationException("tenant b is broken")));

        IReadOnlyList<DoubleReading> readings = listened.Instrument<ObservableGauge>("queue.length").Collect();

        DoubleReading healthy = Assert.Single(readings);
        Assert.Equal((1, "a"), (healthy.Value, healthy.Tags.Single().Value));
    }

    // Which of two meters' callbacks threw cannot be told (they run together, as the rules'
    // listener's do): the failure is logged once per cause, naming the instrument and the meter.
    // An instrument whose every callback throws fails its collection, as one callback of the
    // registry does (the scrape leaves it out and logs it), and keeps its series.
    [Fact]
    public void AThrowingCallbackBesideAReportingOneIsLoggedOncePerCauseAndOneAloneFailsItsInstrument()
    {
        string name = "test.listened." + Guid.NewGuid().ToString("N");
        var logger = new ListLogger();
        using var host = new ScalableMetrics.Exporter.Listening.MeterListenerHost([name], "ScalableMetrics", () => new MetricRegistry(), logger);
        host.Start();
        using var healthy = new Meter(name);
        using var broken = new Meter(name);
        int calls = 0;
        healthy.CreateObservableGauge("queue.length", () => 1L);
        broken.CreateObservableGauge<long>("queue.length", new Func<long>(() => throw new InvalidOperationException("tenant b is broken")));
        healthy.CreateObservableCounter("jobs.done", () => ++calls < 2 ? 5L : throw new InvalidOperationException("jobs are broken"));
        MetricRegistry registry = Assert.Single(host.Scopes).Registry;
        ObservableGauge length = registry.Instruments.OfType<ObservableGauge>().Single();
        ObservableCounter done = registry.Instruments.OfType<ObservableCounter>().Single();

        for (int i = 0; i < 3; i++)
        {
            Assert.Equal(1, Assert.Single(length.Collect()).Value);
        }

        Assert.Equal(5, Assert.Single(done.Collect()).Value);
        InvalidOperationException failure = Assert.Throws<InvalidOperationException>(() => done.Collect());
        Assert.Equal("jobs are broken", Assert.Single(Assert.IsType<AggregateException>(failure.InnerException).InnerExceptions).Message);
        Assert.Equal(1, done.SeriesCount);

        (EventId EventId, LogLevel Level, string Message) logged = Assert.Single(logger.Events, e => e.Level >= LogLevel.Warning);
        Assert.Equal(24, logged.EventId.Id);
        Assert.Contains("'queue.length'", logged.Message, StringComparison.Ordinal);
        Assert.Contains($"'{name}'", logged.Message, StringComparison.Ordinal);
        Assert.Contains("tenant b is broken", logged.Message, StringComparison.Ordinal);
    }

    private static string[] Tags(TagSet tags) => [.. tags.Select(t => $"{t.Key}={t.Value}")];

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static WeakReference CreateUseAndDisposeMeter(string name)
    {
        var meter = new Meter(name);
        meter.CreateCounter<long>("gone").Add(3);
        meter.CreateObservableGauge("gone.gauge", () => 1L);
        meter.Dispose();
        return new WeakReference(meter);
    }
}
