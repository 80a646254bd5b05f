using System.Diagnostics;

namespace ScalableMetrics.Tests.Exemplars;

/// <summary><see cref="ExemplarFilter.AlwaysOn"/>: every measurement is kept, with the current activity's ids where there is one, recorded or not, and none where not.</summary>
public class AlwaysOnExemplarTests
{
    [Fact]
    public void AMeasurementOutsideAnyActivityIsKeptWithoutTraceOrSpan()
    {
        Assert.Null(Activity.Current);
        var registry = new MetricRegistry(new MetricRegistryOptions { ExemplarFilter = ExemplarFilter.AlwaysOn });
        PartitionedCounter counter = registry.CreateCounter("test.always.counter");
        PartitionedHistogram histogram = registry.CreateHistogram("test.always.histogram", boundaries: [1, 2]);
        counter.Add(4);
        histogram.Record(1.5);

        Exemplar exemplar = Assert.NotNull(Assert.Single(counter.Collect()).Exemplar);
        Assert.Equal(4, exemplar.Value);
        Assert.Equal(default, exemplar.TraceId);
        Assert.Equal(default, exemplar.SpanId);
        IReadOnlyList<Exemplar?>? kept = Assert.Single(histogram.Collect()).Exemplars;
        Assert.NotNull(kept);
        Exemplar?[] buckets = [.. kept];
        Assert.Null(buckets[0]);
        Assert.Equal(1.5, Assert.NotNull(buckets[1]).Value);
        Assert.Null(buckets[2]);
    }

    [Fact]
    public void AnUnrecordedActivitysMeasurementIsKeptWithItsIdsWhereTraceBasedKeepsNone()
    {
        var alwaysOn = new MetricRegistry(new MetricRegistryOptions { ExemplarFilter = ExemplarFilter.AlwaysOn }).CreateCounter("test.always.unrecorded");
        var traceBased = new MetricRegistry(new MetricRegistryOptions { ExemplarFilter = ExemplarFilter.TraceBased }).CreateCounter("test.trace.unrecorded");
        using Activity activity = RecordedActivity.Start(recorded: false);
        alwaysOn.Add(2);
        traceBased.Add(2);

        Exemplar exemplar = Assert.NotNull(Assert.Single(alwaysOn.Collect()).Exemplar);
        Assert.Equal(activity.TraceId, exemplar.TraceId);
        Assert.Equal(activity.SpanId, exemplar.SpanId);
        Assert.Null(Assert.Single(traceBased.Collect()).Exemplar);
    }

    [Fact]
    public void AViewCanTurnItOnForOneInstrument()
    {
        var options = new MetricRegistryOptions();
        options.Views.Add(new MetricView { Instrument = "test.always.view", ExemplarFilter = ExemplarFilter.AlwaysOn });
        var registry = new MetricRegistry(options);
        PartitionedCounter viewed = registry.CreateCounter("test.always.view");
        PartitionedCounter other = registry.CreateCounter("test.always.other");
        viewed.Add(1);
        other.Add(1);

        Assert.NotNull(Assert.Single(viewed.Collect()).Exemplar);
        Assert.Null(Assert.Single(other.Collect()).Exemplar);
    }
}
