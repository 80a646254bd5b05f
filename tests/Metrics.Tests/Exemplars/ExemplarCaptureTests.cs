using System.Diagnostics;
using ScalableMetrics.Exemplars;

namespace ScalableMetrics.Tests.Exemplars;

/// <summary>What a series keeps as an exemplar, and when: off by default, TraceBased keeps a recorded activity's measurements only.</summary>
public class ExemplarCaptureTests
{
    private static readonly double[] s_boundaries = [0, 10, 100];
    private static readonly MetricRegistryOptions s_traceBased = new() { ExemplarFilter = ExemplarFilter.TraceBased };

    [Fact]
    public void OffByDefaultKeepsNoExemplarAndAllocatesNoSlot()
    {
        var registry = new MetricRegistry();
        Assert.Equal(ExemplarFilter.None, new MetricRegistryOptions().ExemplarFilter);
        Assert.Equal(ExemplarFilter.None, registry.ExemplarFilter);
        using Activity activity = RecordedActivity.Start();
        PartitionedCounter counter = registry.CreateCounter("test.exemplar.off");
        PartitionedDoubleCounter doubleCounter = registry.CreateDoubleCounter("test.exemplar.off.double");
        PartitionedHistogram histogram = registry.CreateHistogram("test.exemplar.off.histogram", boundaries: s_boundaries);
        counter.Add(3);
        doubleCounter.Add(1.5);
        histogram.Record(5);

        Assert.Null(counter.Bind().Exemplars);
        Assert.Null(doubleCounter.Bind().Exemplars);
        Assert.Null(histogram.Bind().Exemplars);
        Assert.Null(Assert.Single(counter.Collect()).Exemplar);
        Assert.Null(Assert.Single(doubleCounter.Collect()).Exemplar);
        Assert.Null(Assert.Single(histogram.Collect()).Exemplars);
    }

    [Fact]
    public void AnUndefinedFilterIsRefused()
    {
        Assert.Throws<ArgumentOutOfRangeException>(() => new MetricRegistry(new MetricRegistryOptions { ExemplarFilter = (ExemplarFilter)3 }));
    }

    [StorageTheory]
    [MemberData(nameof(Storages.All), MemberType = typeof(Storages))]
    public void TraceBasedKeepsTheValueTimeTraceAndSpanOfARecordedActivity(string storage)
    {
        PartitionedCounter counter = new MetricRegistry(WithExemplars(storage)).CreateCounter("test.exemplar.counter");
        using Activity activity = RecordedActivity.Start();
        DateTimeOffset before = DateTimeOffset.UtcNow;
        counter.Add(7);
        DateTimeOffset after = DateTimeOffset.UtcNow;

        CounterReading reading = Assert.Single(counter.Collect());
        Assert.Equal(7, reading.Value);
        Exemplar exemplar = Assert.NotNull(reading.Exemplar);
        Assert.Equal(7, exemplar.Value);
        Assert.Equal(activity.TraceId, exemplar.TraceId);
        Assert.Equal(activity.SpanId, exemplar.SpanId);
        Assert.InRange(exemplar.Timestamp, before, after);
        Assert.Equal(TimeSpan.Zero, exemplar.Timestamp.Offset);
    }

    [StorageTheory]
    [MemberData(nameof(Storages.All), MemberType = typeof(Storages))]
    public void EveryCounterAddPathKeepsAnExemplar(string storage)
    {
        var registry = new MetricRegistry(WithExemplars(storage));
        PartitionedCounter counter = registry.CreateCounter("test.exemplar.paths");
        PartitionedDoubleCounter doubleCounter = registry.CreateDoubleCounter("test.exemplar.paths.double");
        using Activity activity = RecordedActivity.Start();

        counter.Add(2, new KeyValuePair<string, object?>("path", "unbound"));
        counter.Bind(new KeyValuePair<string, object?>("path", "bound")).Add(3);
        counter.Bind(new KeyValuePair<string, object?>("path", "increment")).Increment();
        doubleCounter.Add(2.5);
        doubleCounter.Bind(new KeyValuePair<string, object?>("path", "bound")).Add(4.5);

        Assert.Equal(
            [("bound", 3.0), ("increment", 1.0), ("unbound", 2.0)],
            counter.Collect().Select(r => ((string)r.Tags[0].Value!, Assert.NotNull(r.Exemplar).Value)).Order());
        Assert.Equal([2.5, 4.5], doubleCounter.Collect().Select(r => Assert.NotNull(r.Exemplar).Value).Order());
        Assert.All(doubleCounter.Collect(), r => Assert.Equal(activity.SpanId, r.Exemplar!.Value.SpanId));
    }

    [Fact]
    public void AnUnrecordedActivityOrNoneKeepsNoExemplarAndAllocatesNoSlot()
    {
        var registry = new MetricRegistry(s_traceBased);
        CounterSeries series = registry.CreateCounter("test.exemplar.unrecorded").Bind();
        HistogramSeries histogram = registry.CreateHistogram("test.exemplar.unrecorded.histogram", boundaries: s_boundaries).Bind();
        Assert.Null(Activity.Current);
        series.Add(1);
        histogram.Record(1);
        using (RecordedActivity.Start(recorded: false))
        {
            series.Add(1);
            histogram.Record(1);
        }

        Assert.Equal(2, series.Read());
        Assert.NotNull(series.Exemplars);
        Assert.NotNull(histogram.Exemplars);
        Assert.Equal(0, series.Exemplars.AllocatedPartitionCount);
        Assert.Equal(0, histogram.Exemplars.AllocatedPartitionCount);
        Assert.Null(series.ReadExemplar());
        Assert.Null(histogram.Read().Exemplars);
    }

    [StorageTheory]
    [MemberData(nameof(Storages.All), MemberType = typeof(Storages))]
    public void AHistogramKeepsTheExemplarInTheBucketOfTheValue(string storage)
    {
        PartitionedHistogram histogram = new MetricRegistry(WithExemplars(storage)).CreateHistogram("test.exemplar.histogram", boundaries: s_boundaries);
        using Activity activity = RecordedActivity.Start();
        histogram.Record(-1.0);
        histogram.Record(10.0);
        histogram.Bind().Record(1000L);

        HistogramReading reading = Assert.Single(histogram.Collect());
        Assert.NotNull(reading.Exemplars);
        IReadOnlyList<Exemplar?> exemplars = reading.Exemplars;
        Assert.Equal(reading.BucketCounts.Count, exemplars.Count);
        Assert.Equal(-1.0, exemplars[0]?.Value);
        Assert.Equal(10.0, exemplars[1]?.Value);
        Assert.Null(exemplars[2]);
        Assert.Equal(1000.0, exemplars[3]?.Value);
        Assert.Equal(activity.TraceId, exemplars[3]?.TraceId);
        Assert.Equal(exemplars, histogram.Bind().Read().Exemplars);
    }

    [Fact]
    public void ALaterMeasurementReplacesTheExemplar()
    {
        CounterSeries series = new MetricRegistry(s_traceBased).CreateCounter("test.exemplar.later").Bind();
        using (RecordedActivity.Start())
        {
            series.Add(1);
        }

        using Activity second = RecordedActivity.Start();
        series.Add(2);
        Exemplar exemplar = Assert.NotNull(series.ReadExemplar());
        Assert.Equal(2, exemplar.Value);
        Assert.Equal(second.SpanId, exemplar.SpanId);
    }

    [Fact]
    public void TheNewestTimestampWinsAcrossPartitions()
    {
        var reservoir = new BucketExemplarReservoir(slotCount: 2);
        ActivityTraceId trace = ActivityTraceId.CreateRandom();
        ActivitySpanId span = ActivitySpanId.CreateRandom();

        // Written in this order, the newest timestamp in the middle: the read goes by time, not by partition or by order of writing.
        int last = ScalableMetrics.Platform.ProcessorId.PartitionCount - 1;
        Assert.True(reservoir.Write(0, 1, 1, 100, trace, span));
        Assert.True(reservoir.Write(last, 1, 2, 300, trace, span));
        if (last > 0)
        {
            Assert.True(reservoir.Write(0, 1, 3, 200, trace, span));
        }

        Assert.Equal(2, reservoir.ReadNewest(1)?.Value);
        Assert.Equal(new DateTimeOffset(300, TimeSpan.Zero), reservoir.ReadNewest(1)?.Timestamp);
        Assert.Null(reservoir.ReadNewest(0));
        Assert.Equal(last > 0 ? 2 : 1, reservoir.AllocatedPartitionCount);
    }

    [Fact]
    public void AReadingKeepsItsPositionalShapeWithAnExemplar()
    {
        // A reading made by a caller keeps its positional shape and an exemplar as an init property.
        var reading = new CounterReading(TagSet.Empty, 5) { Exemplar = new Exemplar(5, DateTimeOffset.UnixEpoch, default, default) };
        (TagSet tags, long value) = reading;
        Assert.Equal(5, value);
        Assert.Equal(TagSet.Empty, tags);
        Assert.NotEqual(reading, new CounterReading(TagSet.Empty, 5));
    }

    private static MetricRegistryOptions WithExemplars(string storage)
    {
        MetricRegistryOptions options = Storages.Options(storage);
        options.ExemplarFilter = ExemplarFilter.TraceBased;
        return options;
    }
}
