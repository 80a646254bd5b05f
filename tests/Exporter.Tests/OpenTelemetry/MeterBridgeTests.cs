using System.Diagnostics.Metrics;
using Microsoft.Extensions.DependencyInjection;

namespace ScalableMetrics.Exporter.Tests.OpenTelemetry;

/// <summary>The bridge publishes a registry's instruments, old and new, on a meter.</summary>
public sealed class MeterBridgeTests
{
    [Fact]
    public void PublishesInstrumentsCreatedBeforeAndAfterItStartedWithTheirSums()
    {
        string meterName = "test.bridge." + Guid.NewGuid().ToString("N");
        var registry = new MetricRegistry();
        PartitionedCounter before = registry.CreateCounter("before.counter", "{item}", "Created before the bridge.");
        before.Add(5, new KeyValuePair<string, object?>("k", "v"));
        using var recorder = new MeasurementRecorder(meterName);

        using var bridge = new MeterBridge(registry, meterName);
        PartitionedCounter after = registry.CreateCounter("after.counter");
        after.Add(3);
        after.Add(4);
        OperationData operation = registry.CreateOperationData("after.operation", "Operations.");
        operation.Record(TimeSpan.FromSeconds(2), new KeyValuePair<string, object?>("route", "/x"));
        operation.Record(TimeSpan.FromSeconds(1), new KeyValuePair<string, object?>("route", "/x"));
        recorder.Listener.RecordObservableInstruments();

        Assert.Equal(meterName, bridge.MeterName);
        Assert.Equal(
            ["after.counter", "after.operation", "after.operation.count", "before.counter"],
            recorder.Published.Select(i => i.Name).Order(StringComparer.Ordinal));

        System.Diagnostics.Metrics.Instrument beforeInstrument = recorder.Published.Single(i => i.Name == "before.counter");
        Assert.IsType<ObservableCounter<long>>(beforeInstrument);
        Assert.Equal("{item}", beforeInstrument.Unit);
        Assert.Equal("Created before the bridge.", beforeInstrument.Description);
        Assert.IsType<ObservableCounter<double>>(recorder.Published.Single(i => i.Name == "after.operation"));
        Assert.Equal("s", recorder.Published.Single(i => i.Name == "after.operation").Unit);
        Assert.IsType<ObservableCounter<long>>(recorder.Published.Single(i => i.Name == "after.operation.count"));
        Assert.Equal("{operation}", recorder.Published.Single(i => i.Name == "after.operation.count").Unit);

        Assert.Equal(5L, recorder.Single("before.counter").Value);
        Assert.Equal([new("k", "v")], recorder.Single("before.counter").Tags);
        Assert.Equal(7L, recorder.Single("after.counter").Value);
        Assert.Empty(recorder.Single("after.counter").Tags);
        Assert.Equal(3.0, (double)recorder.Single("after.operation").Value, 6);
        Assert.Equal([new("route", "/x")], recorder.Single("after.operation").Tags);
        Assert.Equal(2L, recorder.Single("after.operation.count").Value);
    }

    [Fact]
    public void EachSeriesIsObservedAsOneMeasurementOfItsSum()
    {
        string meterName = "test.bridge." + Guid.NewGuid().ToString("N");
        var registry = new MetricRegistry();
        using var recorder = new MeasurementRecorder(meterName);
        using var bridge = new MeterBridge(registry, meterName);
        PartitionedCounter counter = registry.CreateCounter("series");
        for (int i = 0; i < 10; i++)
        {
            counter.Add(i, new KeyValuePair<string, object?>("n", i % 3));
        }

        recorder.Listener.RecordObservableInstruments();

        Assert.Equal(
            [(0L, 0 + 3 + 6 + 9L), (1L, 1 + 4 + 7L), (2L, 2 + 5 + 8L)],
            recorder.Measurements.Select(m => ((long)m.Tags.Single().Value!, (long)m.Value)).Order());
    }

    [Fact]
    public void DisposeEndsTheMeasurementsAndStopsPublishing()
    {
        string meterName = "test.bridge." + Guid.NewGuid().ToString("N");
        var registry = new MetricRegistry();
        registry.CreateCounter("existing");
        using var recorder = new MeasurementRecorder(meterName);
        var bridge = new MeterBridge(registry, meterName);

        bridge.Dispose();
        registry.CreateCounter("created.after.dispose");

        Assert.Equal(["existing"], recorder.Completed.Select(i => i.Name));
        Assert.DoesNotContain(recorder.Published, i => i.Name == "created.after.dispose");
    }

    // Dispose's docs: "Stops publishing: ... the meter is disposed, which ends every listener's
    // measurements of it". A meter the container's IMeterFactory made ignores Meter.Dispose, so a
    // disposed bridge went on reading the registry into every listener's collections.
    [Fact]
    public void DisposeEndsTheMeasurementsOfAMeterTheFactoryMadeToo()
    {
        using ServiceProvider services = new ServiceCollection().AddMetrics().BuildServiceProvider();
        string meterName = "test.bridge." + Guid.NewGuid().ToString("N");
        var registry = new MetricRegistry();
        registry.CreateCounter("existing").Add(5);
        using var recorder = new MeasurementRecorder(meterName);
        var bridge = new MeterBridge(registry, meterName, null, services.GetRequiredService<IMeterFactory>());

        bridge.Dispose();
        recorder.Listener.RecordObservableInstruments();

        Assert.Empty(recorder.Measurements);
        Assert.Equal(["existing"], recorder.Completed.Select(i => i.Name));
    }

    [Fact]
    public void RejectsNullAndEmptyArguments()
    {
        Assert.Throws<ArgumentNullException>(() => new MeterBridge(null!));
        Assert.Throws<ArgumentException>(() => new MeterBridge(new MetricRegistry(), " "));
    }

    /// <summary>Listens to one meter and keeps what it publishes and measures.</summary>
    private sealed class MeasurementRecorder : IDisposable
    {
        private readonly Lock _lock = new();

        public MeasurementRecorder(string meterName)
        {
            Listener = new MeterListener
            {
                InstrumentPublished = (instrument, listener) =>
                {
                    if (instrument.Meter.Name == meterName)
                    {
                        lock (_lock)
                        {
                            Published.Add(instrument);
                        }

                        listener.EnableMeasurementEvents(instrument);
                    }
                },
                MeasurementsCompleted = (instrument, _) =>
                {
                    lock (_lock)
                    {
                        Completed.Add(instrument);
                    }
                },
            };
            Listener.SetMeasurementEventCallback<long>((instrument, value, tags, _) => Add(instrument, value, tags));
            Listener.SetMeasurementEventCallback<double>((instrument, value, tags, _) => Add(instrument, value, tags));
            Listener.Start();
        }

        public MeterListener Listener { get; }

        public List<System.Diagnostics.Metrics.Instrument> Published { get; } = [];

        public List<System.Diagnostics.Metrics.Instrument> Completed { get; } = [];

        public List<(string Instrument, object Value, KeyValuePair<string, object?>[] Tags)> Measurements { get; } = [];

        public (string Instrument, object Value, KeyValuePair<string, object?>[] Tags) Single(string instrument) =>
            Assert.Single(Measurements, m => m.Instrument == instrument);

        public void Dispose() => Listener.Dispose();

        private void Add(System.Diagnostics.Metrics.Instrument instrument, object value, ReadOnlySpan<KeyValuePair<string, object?>> tags)
        {
            KeyValuePair<string, object?>[] copy = tags.ToArray();
            lock (_lock)
            {
                Measurements.Add((instrument.Name, value, copy));
            }
        }
    }
}
