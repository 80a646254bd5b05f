using System.Diagnostics;
using ScalableMetrics.Exemplars;

namespace ScalableMetrics.Tests.Exemplars;

/// <summary>
/// Exemplars on exponential histograms: a reservoir of min(20, max buckets) per series
/// (OpenTelemetry's <c>SimpleFixedSizeExemplarReservoir</c>, its default for Base2 exponential
/// histograms), filled by the registry's or a view's filter, read with the counts, and nothing
/// kept or allocated without a filter.
/// </summary>
public class ExponentialHistogramExemplarTests
{
    [Fact]
    public void WithoutAFilterASeriesHasNoReservoirAndReadsNoExemplar()
    {
        var registry = new MetricRegistry();
        PartitionedExponentialHistogram histogram = registry.CreateExponentialHistogram("test.exp.none");
        using (RecordedActivity.Start())
        {
            histogram.Record(1.5);
        }

        Assert.Null(histogram.Bind().Exemplars);
        ExponentialHistogramReading reading = Assert.Single(histogram.Collect());
        Assert.Equal(1, reading.Count);
        Assert.Empty(reading.Exemplars);
        Assert.Empty(histogram.Bind().Read().Exemplars);
    }

    [Fact]
    public void TraceBasedKeepsTheRecordedActivitysMeasurementWithItsTraceAndSpan()
    {
        var registry = new MetricRegistry(new MetricRegistryOptions { ExemplarFilter = ExemplarFilter.TraceBased });
        PartitionedExponentialHistogram histogram = registry.CreateExponentialHistogram("test.exp.trace", "s");
        histogram.Record(0.25);
        using (RecordedActivity.Start(recorded: false))
        {
            histogram.Record(0.5);
        }

        DateTimeOffset before = DateTimeOffset.UtcNow;
        Activity recorded = RecordedActivity.Start();
        histogram.Record(3.0);
        recorded.Stop();
        DateTimeOffset after = DateTimeOffset.UtcNow;

        ExponentialHistogramReading reading = Assert.Single(histogram.Collect());
        Assert.Equal(3, reading.Count);
        Exemplar exemplar = Assert.Single(reading.Exemplars);
        Assert.Equal(3.0, exemplar.Value);
        Assert.Equal(recorded.TraceId, exemplar.TraceId);
        Assert.Equal(recorded.SpanId, exemplar.SpanId);
        Assert.InRange(exemplar.Timestamp, before, after);
        Assert.Equal(exemplar.Value, Assert.Single(histogram.Bind().Read().Exemplars).Value);
    }

    [Fact]
    public void AlwaysOnKeepsEveryMeasurementTracedOrNot()
    {
        Assert.Null(Activity.Current);
        var registry = new MetricRegistry(new MetricRegistryOptions { ExemplarFilter = ExemplarFilter.AlwaysOn });
        PartitionedExponentialHistogram histogram = registry.CreateExponentialHistogram("test.exp.always");
        histogram.Record(0.25);
        Activity unrecorded = RecordedActivity.Start(recorded: false);
        histogram.Record(0.5);
        unrecorded.Stop();
        Activity recorded = RecordedActivity.Start();
        histogram.Record(3.0);
        recorded.Stop();

        Exemplar[] exemplars = [.. Assert.Single(histogram.Collect()).Exemplars.OrderBy(e => e.Value)];
        Assert.Equal([0.25, 0.5, 3.0], exemplars.Select(e => e.Value));
        Assert.Equal([default, unrecorded.TraceId, recorded.TraceId], exemplars.Select(e => e.TraceId));
        Assert.Equal([default, unrecorded.SpanId, recorded.SpanId], exemplars.Select(e => e.SpanId));
    }

    [Theory]
    [InlineData(PartitionedExponentialHistogram.DefaultMaxBuckets, 20)]
    [InlineData(5, 5)]
    public void AReadingKeepsAtMostTheLowerOfTwentyAndMaxBucketsOldestFirst(int maxBuckets, int kept)
    {
        var registry = new MetricRegistry(new MetricRegistryOptions { ExemplarFilter = ExemplarFilter.AlwaysOn });
        PartitionedExponentialHistogram histogram = registry.CreateExponentialHistogram("test.exp.size", maxBuckets: maxBuckets);
        double[] recorded = [.. Enumerable.Range(1, 100).Select(i => i / 8.0)];
        foreach (double value in recorded)
        {
            histogram.Record(value);
        }

        ExponentialHistogramReading reading = Assert.Single(histogram.Collect());
        Assert.Equal(recorded.Length, reading.Count);
        Assert.Equal(recorded.Sum(), reading.Sum);
        Assert.Equal(kept, reading.Exemplars.Count);
        Assert.All(reading.Exemplars, e => Assert.Contains(e.Value, recorded));
        Assert.Equal(kept, reading.Exemplars.Select(e => e.Value).Distinct().Count());
        Assert.Equal(reading.Exemplars.Select(e => e.Timestamp).Order(), reading.Exemplars.Select(e => e.Timestamp));
    }

    [Fact]
    public void TheMeasurementsAfterAReadFillTheReservoirAgain()
    {
        // Algorithm R starts over at each read: the first size measurements after it take every
        // slot, so that a read after them returns exactly them; without the restart, each would
        // get in with a probability of about size / 200.
        var registry = new MetricRegistry(new MetricRegistryOptions { ExemplarFilter = ExemplarFilter.AlwaysOn });
        PartitionedExponentialHistogram histogram = registry.CreateExponentialHistogram("test.exp.restart");
        int size = SimpleFixedSizeExemplarReservoir.DefaultMaxSize;
        for (int i = 1; i <= 200; i++)
        {
            histogram.Record(i);
        }

        Assert.Equal(size, Assert.Single(histogram.Collect()).Exemplars.Count);
        double[] after = [.. Enumerable.Range(1, size).Select(i => 1000.0 + i)];
        foreach (double value in after)
        {
            histogram.Record(value);
        }

        ExponentialHistogramReading reading = Assert.Single(histogram.Collect());
        Assert.Equal(after, reading.Exemplars.Select(e => e.Value).Order());
        Assert.Equal(200 + size, reading.Count);
    }

    [Fact]
    public void TheClassicBucketsCountedBesideOfferNoExemplar()
    {
        var registry = new MetricRegistry(new MetricRegistryOptions { ExemplarFilter = ExemplarFilter.AlwaysOn });
        PartitionedExponentialHistogram histogram = registry.CreateExponentialHistogram("test.exp.classic", classicBoundaries: [0.5, 2]);
        histogram.Record(0.25);
        histogram.Record(1.5);
        histogram.Record(3.0);

        ExponentialHistogramReading reading = Assert.Single(histogram.Collect());
        Assert.Equal([0.25, 1.5, 3.0], reading.Exemplars.Select(e => e.Value).Order());
        Assert.Equal([1L, 2L], reading.ClassicCumulativeCounts);
        Assert.Equal(3, reading.ClassicCount);
    }

    [Fact]
    public void AViewTurnsThemOnForOneExponentialHistogram()
    {
        var options = new MetricRegistryOptions();
        options.Views.Add(new MetricView { Instrument = "test.exp.viewed", ExemplarFilter = ExemplarFilter.AlwaysOn });
        var registry = new MetricRegistry(options);
        PartitionedExponentialHistogram viewed = registry.CreateExponentialHistogram("test.exp.viewed");
        PartitionedExponentialHistogram other = registry.CreateExponentialHistogram("test.exp.other");
        viewed.Record(2);
        other.Record(2);

        Assert.Equal(2, Assert.Single(Assert.Single(viewed.Collect()).Exemplars).Value);
        Assert.Empty(Assert.Single(other.Collect()).Exemplars);
    }

    [Fact]
    public void NothingIsAllocatedUntilAMeasurementIsSampled()
    {
        var registry = new MetricRegistry(new MetricRegistryOptions { ExemplarFilter = ExemplarFilter.TraceBased });
        ExponentialHistogramSeries series = registry.CreateExponentialHistogram("test.exp.lazy").Bind();
        series.Record(1);

        ExemplarReservoir reservoir = Assert.IsType<SimpleFixedSizeExemplarReservoir>(series.Exemplars);
        Assert.Equal(0, reservoir.AllocatedPartitionCount);
        Assert.Empty(series.Read().Exemplars);
        using (RecordedActivity.Start())
        {
            series.Record(1);
        }

        Assert.Equal(1, reservoir.AllocatedPartitionCount);
    }
}
