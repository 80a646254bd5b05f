using ScalableMetrics.Instruments.Histograms;

namespace ScalableMetrics.Tests.Instruments;

/// <summary>Bad input to the new instruments: a clear exception naming the argument, and nothing created or recorded.</summary>
public class InstrumentBadInputTests
{
    private readonly MetricRegistry _registry = new();

    public static TheoryData<double[], string> BadBoundaries => new()
    {
        { [2, 1], "sorted" },
        { [0, 5, 5, 10], "repeats" },
        { [0, double.NaN], "NaN" },
        { [0, double.PositiveInfinity], "+∞" },
        { [double.NegativeInfinity, 0], "-∞" },
        { [], "empty" },
        { [.. Enumerable.Range(0, 257).Select(i => (double)i)], "at most 256" },
    };

    [Theory]
    [MemberData(nameof(BadBoundaries))]
    public void BadBoundariesAreRefusedAndNothingIsCreated(double[] boundaries, string reason)
    {
        var histogram = Assert.Throws<ArgumentException>(() => _registry.CreateHistogram("test.bad.boundaries", boundaries: boundaries));
        Assert.Equal("boundaries", histogram.ParamName);
        Assert.Contains(reason, histogram.Message);
        var operation = Assert.Throws<ArgumentException>(() => _registry.CreateOperationData("test.bad.boundaries.op", boundaries: boundaries));
        Assert.Equal("boundaries", operation.ParamName);
        Assert.Contains(reason, operation.Message);
        Assert.Empty(_registry.Instruments);
    }

    [Fact]
    public void ExactlyTheMostBoundariesAreTaken()
    {
        PartitionedHistogram histogram = _registry.CreateHistogram("test.most", boundaries: [.. Enumerable.Range(0, HistogramBuckets.MaxBoundaryCount).Select(i => (double)i)]);
        histogram.Record(1e9);
        Assert.Equal(1, Assert.Single(histogram.Collect()).BucketCounts[^1]);
    }

    [Fact]
    public void NullBoundariesAreRefusedWhereNullMeansNothingElse()
    {
        Assert.Equal("boundaries", Assert.Throws<ArgumentNullException>(() => HistogramBuckets.Create(null!, "boundaries")).ParamName);
    }

    [Fact]
    public void NaNIsRefusedAndNothingIsRecorded()
    {
        PartitionedHistogram histogram = _registry.CreateHistogram("test.nan");
        HistogramSeries series = histogram.Bind();
        series.Record(1);
        Assert.Equal("value", Assert.Throws<ArgumentOutOfRangeException>(() => series.Record(double.NaN)).ParamName);
        Assert.Equal("value", Assert.Throws<ArgumentOutOfRangeException>(() => histogram.Record(double.NaN)).ParamName);
        Assert.Equal("value", Assert.Throws<ArgumentOutOfRangeException>(() => histogram.Record(double.NaN, new KeyValuePair<string, object?>("k", "v"))).ParamName);
        HistogramReading reading = Assert.Single(histogram.Collect());
        Assert.Equal(1, reading.Count);
        Assert.Equal(1, reading.Sum);
    }

    [Theory]
    [InlineData(-0.25)]
    [InlineData(double.NaN)]
    [InlineData(double.PositiveInfinity)]
    [InlineData(double.NegativeInfinity)]
    public void DoubleCounterRefusesNegativeNaNAndInfiniteIncrements(double value)
    {
        PartitionedDoubleCounter counter = _registry.CreateDoubleCounter("test.double.bad");
        DoubleCounterSeries series = counter.Bind();
        series.Add(0.5);
        Assert.Equal("value", Assert.Throws<ArgumentOutOfRangeException>(() => series.Add(value)).ParamName);
        Assert.Equal("value", Assert.Throws<ArgumentOutOfRangeException>(() => counter.Add(value)).ParamName);
        Assert.Equal("value", Assert.Throws<ArgumentOutOfRangeException>(() => counter.Add(value, new KeyValuePair<string, object?>("k", "v"))).ParamName);
        Assert.Equal(0.5, Assert.Single(counter.Collect()).Value);
    }

    [Theory]
    [InlineData(double.NaN)]
    [InlineData(double.PositiveInfinity)]
    [InlineData(double.NegativeInfinity)]
    public void DoubleUpDownCounterRefusesNaNAndInfinities(double value)
    {
        PartitionedDoubleUpDownCounter counter = _registry.CreateDoubleUpDownCounter("test.double.updown.bad");
        DoubleUpDownCounterSeries series = counter.Bind();
        series.Add(-0.5);
        Assert.Equal("value", Assert.Throws<ArgumentOutOfRangeException>(() => series.Add(value)).ParamName);
        Assert.Equal("value", Assert.Throws<ArgumentOutOfRangeException>(() => counter.Add(value)).ParamName);
        Assert.Equal("value", Assert.Throws<ArgumentOutOfRangeException>(() => counter.Add(value, new KeyValuePair<string, object?>("k", "v"))).ParamName);
        Assert.Equal(-0.5, Assert.Single(counter.Collect()).Value);
    }

    [Theory]
    [InlineData("")]
    [InlineData("1starts.with.digit")]
    [InlineData("has space")]
    public void InvalidNamesAreRefusedForEveryNewKind(string name)
    {
        Action[] creates =
        [
            () => _registry.CreateHistogram(name),
            () => _registry.CreateUpDownCounter(name),
            () => _registry.CreateDoubleUpDownCounter(name),
            () => _registry.CreateDoubleCounter(name),
            () => _registry.CreateOperationData(name, boundaries: [1]),
        ];
        foreach (Action create in creates)
        {
            Assert.Equal("name", Assert.Throws<ArgumentException>(create).ParamName);
        }

        Assert.Equal("name", Assert.Throws<ArgumentNullException>(() => _registry.CreateHistogram(null!)).ParamName);
        Assert.Equal("unit", Assert.Throws<ArgumentException>(() => _registry.CreateHistogram("test.unit", "µs")).ParamName);
        Assert.Empty(_registry.Instruments);
    }

    [Fact]
    public void BadTagsAreRefusedForEveryNewKindAndNothingIsRecorded()
    {
        KeyValuePair<string, object?>[] bad = [new("k", 1), new("k", 2)];
        PartitionedHistogram histogram = _registry.CreateHistogram("test.tags.histogram");
        PartitionedUpDownCounter upDown = _registry.CreateUpDownCounter("test.tags.updown");
        PartitionedDoubleUpDownCounter doubleUpDown = _registry.CreateDoubleUpDownCounter("test.tags.double.updown");
        PartitionedDoubleCounter doubleCounter = _registry.CreateDoubleCounter("test.tags.double");
        Action[] records =
        [
            () => histogram.Record(1.0, bad), () => histogram.Record(1L, bad), () => histogram.Bind(bad),
            () => upDown.Add(1, bad), () => upDown.Bind(bad),
            () => doubleUpDown.Add(1.0, bad), () => doubleUpDown.Bind(bad),
            () => doubleCounter.Add(1.0, bad), () => doubleCounter.Bind(bad),
            () => histogram.Record(1.0, new KeyValuePair<string, object?>("le", "1")),
        ];
        foreach (Action record in records)
        {
            Assert.Equal("tags", Assert.Throws<ArgumentException>(record).ParamName);
        }

        Assert.Empty(histogram.Collect());
        Assert.Empty(upDown.Collect());
        Assert.Empty(doubleUpDown.Collect());
        Assert.Empty(doubleCounter.Collect());
    }
}
