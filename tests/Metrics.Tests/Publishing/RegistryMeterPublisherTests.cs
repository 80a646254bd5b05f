using System.Diagnostics.Metrics;
using ScalableMetrics.Publishing;

namespace ScalableMetrics.Tests.Publishing;

/// <summary>The registry's instruments as a <see cref="MeterListener"/> (dotnet-counters) sees them: counters read when it collects, histograms replayed from their buckets while it listens.</summary>
public sealed class RegistryMeterPublisherTests
{
    private static KeyValuePair<string, object?> Tag(string key, object value) => new(key, value);

    [Fact]
    public void AListenerReadsTheCountersTotalsWhenItCollects()
    {
        string meterName = "test.publish." + Guid.NewGuid().ToString("N");
        var registry = new MetricRegistry();
        PartitionedCounter counter = registry.CreateCounter("test.requests", "{request}");
        using var publisher = new RegistryMeterPublisher(registry, meterName, null, null, Timeout.InfiniteTimeSpan);
        counter.Add(5, Tag("route", "/a"));
        counter.Bind(Tag("route", "/b")).Add(7);
        registry.CreateDoubleGauge("test.ratio").Set(0.5);

        using var listener = new RecordingListener(meterName);
        listener.Listener.RecordObservableInstruments();

        Assert.Equal(new Dictionary<string, double> { ["/a"] = 5, ["/b"] = 7 }, listener.Values("test.requests").ToDictionary(m => (string)m.Tags["route"]!, m => m.Value));
        Assert.Equal([0.5], listener.Values("test.ratio").Select(m => m.Value));
        Assert.Equal("{request}", listener.Units["test.requests"]);
    }

    [Fact]
    public void AHistogramIsReplayedFromItsBucketsOnlyWhileListenedToAndFromTheFirstTicksBaseline()
    {
        string meterName = "test.publish." + Guid.NewGuid().ToString("N");
        var registry = new MetricRegistry();
        PartitionedHistogram histogram = registry.CreateHistogram("test.latency", "s", boundaries: [1, 2, 4]);
        using var publisher = new RegistryMeterPublisher(registry, meterName, null, null, Timeout.InfiniteTimeSpan);
        histogram.Record(0.5, Tag("route", "/a"));

        // Nobody listens: a tick records nothing, and what was recorded before the listener is its baseline.
        publisher.Tick();
        using var listener = new RecordingListener(meterName);
        publisher.Tick();
        Assert.Empty(listener.Values("test.latency"));

        histogram.Record(0.2, Tag("route", "/a"));
        histogram.Record(1.5, Tag("route", "/a"));
        histogram.Record(3, Tag("route", "/a"));
        histogram.Record(100, Tag("route", "/a"));
        histogram.Bind(Tag("route", "/b")).Record(1.2);
        publisher.Tick();

        // Each value as its bucket's representative: (0, 1] → 0.5, (1, 2] → 1.5, (2, 4] → 3, above 4 → 4.
        Assert.Equal([0.5, 1.5, 3, 4], listener.Values("test.latency").Where(m => (string)m.Tags["route"]! == "/a").Select(m => m.Value).Order());
        Assert.Equal([1.5], listener.Values("test.latency").Where(m => (string)m.Tags["route"]! == "/b").Select(m => m.Value));

        // A tick with nothing new replays nothing more.
        int before = listener.Values("test.latency").Count;
        publisher.Tick();
        Assert.Equal(before, listener.Values("test.latency").Count);
    }

    [Fact]
    public void PastTheReplayLimitEachBucketIsScaledDownAlike()
    {
        string meterName = "test.publish." + Guid.NewGuid().ToString("N");
        var registry = new MetricRegistry();
        PartitionedHistogram histogram = registry.CreateHistogram("test.burst", boundaries: [1]);
        using var publisher = new RegistryMeterPublisher(registry, meterName, null, null, Timeout.InfiniteTimeSpan);
        using var listener = new RecordingListener(meterName);
        publisher.Tick();
        HistogramSeries series = histogram.Bind();
        for (int i = 0; i < RegistryMeterPublisher.MaxReplayedPerSeries * 3; i++)
        {
            series.Record(i % 4 == 0 ? 0.5 : 2);
        }

        publisher.Tick();
        List<(double Value, Dictionary<string, object?> Tags)> values = listener.Values("test.burst");
        Assert.Equal(RegistryMeterPublisher.MaxReplayedPerSeries, values.Count);
        Assert.Equal(RegistryMeterPublisher.MaxReplayedPerSeries / 4, values.Count(v => v.Value == 0.5));
    }

    [Fact]
    public void AnExponentialHistogramIsReplayedAtItsBucketsGeometricMidpoints()
    {
        string meterName = "test.publish." + Guid.NewGuid().ToString("N");
        var registry = new MetricRegistry();
        PartitionedExponentialHistogram histogram = registry.CreateExponentialHistogram("test.native", scale: 0, minValue: 1, maxValue: 1024);
        using var publisher = new RegistryMeterPublisher(registry, meterName, null, null, Timeout.InfiniteTimeSpan);
        using var listener = new RecordingListener(meterName);
        publisher.Tick();
        histogram.Record(3);
        histogram.Record(3.5);
        publisher.Tick();

        // At scale 0, 3 and 3.5 are in (2, 4]: replayed twice as 4 / sqrt(2).
        Assert.Equal([4 / Math.Sqrt(2), 4 / Math.Sqrt(2)], listener.Values("test.native").Select(m => m.Value), new ToleranceComparer());
    }

    [Fact]
    public void ARemovedHistogramSeriesIsReclaimedWhileAListenerReplaysTheHistogram()
    {
        string meterName = "test.publish." + Guid.NewGuid().ToString("N");
        var registry = new MetricRegistry();
        PartitionedHistogram histogram = registry.CreateHistogram("test.tenant.latency", "s", boundaries: [1, 2]);
        using var publisher = new RegistryMeterPublisher(registry, meterName, null, null, Timeout.InfiniteTimeSpan);
        using var listener = new RecordingListener(meterName);
        publisher.Tick();
        RecordAndRemove(histogram, publisher);

        // The removal's export, then a tick: nothing outside the registry holds the series any more,
        // so the GC collects it and the next collection gives its memory back (series-lifecycle.md, "Memory").
        Assert.Single(histogram.Collect());
        publisher.Tick();
        CollectGarbage();
        Assert.Empty(histogram.Collect());
        publisher.Tick();

        Assert.Equal(1L, registry.RemovedSeriesReclaimed);
    }

    [Fact]
    public void AListenersReadOfARemovedSeriesLeavesItsLastValueToTheNextCollection()
    {
        // The listener's reads are not collections (series-lifecycle.md): they see a removed
        // series' value until the collection that removes it, which exports it a last time.
        string meterName = "test.publish." + Guid.NewGuid().ToString("N");
        var registry = new MetricRegistry();
        PartitionedCounter counter = registry.CreateCounter("test.tenant.jobs");
        Gauge gauge = registry.CreateGauge("test.tenant.queue");
        using var publisher = new RegistryMeterPublisher(registry, meterName, null, null, Timeout.InfiniteTimeSpan);
        using var listener = new RecordingListener(meterName);
        KeyValuePair<string, object?> tenant = Tag("tenant", "gone");
        counter.Add(5, tenant);
        gauge.Set(3, tenant);
        Assert.True(counter.Remove(tenant));
        Assert.True(gauge.Remove(tenant));
        counter.Add(2, tenant);

        listener.Listener.RecordObservableInstruments();
        listener.Listener.RecordObservableInstruments();

        Assert.Equal([7.0, 7.0], listener.Values("test.tenant.jobs").Select(m => m.Value));
        Assert.Equal([3.0, 3.0], listener.Values("test.tenant.queue").Select(m => m.Value));
        Assert.Equal(7, Assert.Single(counter.Collect()).Value);
        Assert.Equal(3, Assert.Single(gauge.Collect()).Value);
        Assert.Empty(counter.Collect());
        Assert.Empty(gauge.Collect());

        // Gone from the registry, gone from the listener.
        listener.Listener.RecordObservableInstruments();
        Assert.Equal(2, listener.Values("test.tenant.jobs").Count);
        Assert.Equal(2, listener.Values("test.tenant.queue").Count);
    }

    [Fact]
    public void AReplayOfARemovedHistogramSeriesLeavesItsLastCountsToTheNextCollection()
    {
        string meterName = "test.publish." + Guid.NewGuid().ToString("N");
        var registry = new MetricRegistry();
        PartitionedHistogram histogram = registry.CreateHistogram("test.tenant.duration", "s", boundaries: [1, 2]);
        using var publisher = new RegistryMeterPublisher(registry, meterName, null, null, Timeout.InfiniteTimeSpan);
        using var listener = new RecordingListener(meterName);
        publisher.Tick();
        KeyValuePair<string, object?> tenant = Tag("tenant", "gone");
        histogram.Record(0.5, tenant);
        publisher.Tick();
        histogram.Record(1.5, tenant);
        Assert.True(histogram.Remove(tenant));
        publisher.Tick();

        // The replay saw both records, and the collection that removes the series exports both.
        Assert.Equal([0.5, 1.5], listener.Values("test.tenant.duration").Select(m => m.Value));
        Assert.Equal(2, Assert.Single(histogram.Collect()).Count);
        Assert.Empty(histogram.Collect());
        publisher.Tick();
        Assert.Equal(2, listener.Values("test.tenant.duration").Count);
    }

    [Fact]
    public void IdleExpiryCountsTheExportersCollectionsNotAListenersReads()
    {
        string meterName = "test.publish." + Guid.NewGuid().ToString("N");
        var registry = new MetricRegistry(new MetricRegistryOptions { RemoveSeriesIdleForCollections = 2 });
        PartitionedCounter counter = registry.CreateCounter("test.tenant.requests");
        PartitionedHistogram histogram = registry.CreateHistogram("test.tenant.latency", "s", boundaries: [1]);
        using var publisher = new RegistryMeterPublisher(registry, meterName, null, null, Timeout.InfiniteTimeSpan);
        using var listener = new RecordingListener(meterName);
        KeyValuePair<string, object?> tenant = Tag("tenant", "quiet");
        counter.Add(1, tenant);
        histogram.Record(0.5, tenant);

        // A listener that reads thrice between the exporter's collections (dotnet-counters each
        // second, a scrape each few): the first collection sees the series, the next two find it
        // unchanged, the second of which marks it, and the one after exports it a last time.
        int[] Collect()
        {
            for (int i = 0; i < 3; i++)
            {
                listener.Listener.RecordObservableInstruments();
                publisher.Tick();
            }

            return [counter.Collect().Count, histogram.Collect().Count];
        }

        Assert.Equal([1, 1], Collect());
        Assert.Equal([1, 1], Collect());
        Assert.Equal([1, 1], Collect());
        Assert.Equal([1, 1], Collect());
        Assert.Equal([0, 0], Collect());
    }

    // Not inlined, so that no local of the caller keeps the series alive.
    [System.Runtime.CompilerServices.MethodImpl(System.Runtime.CompilerServices.MethodImplOptions.NoInlining)]
    private static void RecordAndRemove(PartitionedHistogram histogram, RegistryMeterPublisher publisher)
    {
        KeyValuePair<string, object?> tenant = Tag("tenant", "gone");
        histogram.Record(0.5, tenant);
        publisher.Tick();
        Assert.True(histogram.Remove(tenant));
    }

    private static void CollectGarbage()
    {
        for (int i = 0; i < 2; i++)
        {
            GC.Collect();
            GC.WaitForPendingFinalizers();
        }
    }

    private sealed class ToleranceComparer : IEqualityComparer<double>
    {
        public bool Equals(double x, double y) => Math.Abs(x - y) < 1e-9;

        public int GetHashCode(double obj) => 0;
    }

    private sealed class RecordingListener : IDisposable
    {
        private readonly List<(string Name, double Value, Dictionary<string, object?> Tags)> _measurements = [];

        public RecordingListener(string meterName)
        {
            Listener = new MeterListener
            {
                InstrumentPublished = (instrument, listener) =>
                {
                    if (instrument.Meter.Name == meterName)
                    {
                        Units[instrument.Name] = instrument.Unit;
                        listener.EnableMeasurementEvents(instrument);
                    }
                },
            };
            Listener.SetMeasurementEventCallback<long>((instrument, value, tags, _) => Add(instrument, value, tags));
            Listener.SetMeasurementEventCallback<double>((instrument, value, tags, _) => Add(instrument, value, tags));
            Listener.Start();
        }

        public MeterListener Listener { get; }

        public Dictionary<string, string?> Units { get; } = [];

        public List<(double Value, Dictionary<string, object?> Tags)> Values(string name)
        {
            lock (_measurements)
            {
                return [.. _measurements.Where(m => m.Name == name).Select(m => (m.Value, m.Tags))];
            }
        }

        public void Dispose() => Listener.Dispose();

        private void Add(System.Diagnostics.Metrics.Instrument instrument, double value, ReadOnlySpan<KeyValuePair<string, object?>> tags)
        {
            var copy = new Dictionary<string, object?>();
            foreach (KeyValuePair<string, object?> tag in tags)
            {
                copy[tag.Key] = tag.Value;
            }

            lock (_measurements)
            {
                _measurements.Add((instrument.Name, value, copy));
            }
        }
    }
}
