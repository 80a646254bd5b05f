namespace ScalableMetrics.Tests;

public class BadInputTests
{
    private readonly MetricRegistry _registry = new();

    [Theory]
    [InlineData("")]
    [InlineData("1starts.with.digit")]
    [InlineData("has space")]
    [InlineData("has:colon")]
    [InlineData("ünicode")]
    public void InvalidInstrumentNameIsRejectedAndNothingIsCreated(string name)
    {
        var e = Assert.Throws<ArgumentException>(() => _registry.CreateCounter(name));
        Assert.Equal("name", e.ParamName);
        Assert.Contains("not a valid instrument name", e.Message);
        Assert.Throws<ArgumentException>(() => _registry.CreateOperationData(name));
        Assert.Empty(_registry.Instruments);
    }

    [Fact]
    public void NameLongerThan255IsRejected()
    {
        Assert.Equal("name", Assert.Throws<ArgumentException>(() => _registry.CreateCounter("a" + new string('b', 255))).ParamName);
        Assert.NotNull(_registry.CreateCounter("a" + new string('b', 254)));
    }

    [Fact]
    public void NullNameIsRejected()
    {
        Assert.Equal("name", Assert.Throws<ArgumentNullException>(() => _registry.CreateCounter(null!)).ParamName);
    }

    [Fact]
    public void NullNameIsRejectedNamedWhereAWildcardViewWouldMatchIt()
    {
        var options = new MetricRegistryOptions();
        options.Views.Add(new MetricView { Instrument = "*", HistogramBoundaries = [1, 2] });
        var registry = new MetricRegistry(options);
        Assert.Equal("name", Assert.Throws<ArgumentNullException>(() => registry.CreateHistogram(null!)).ParamName);
        Assert.Equal("name", Assert.Throws<ArgumentNullException>(() => registry.CreateExponentialHistogram(null!)).ParamName);
        Assert.Equal("name", Assert.Throws<ArgumentNullException>(() => registry.CreateOperationData(null!)).ParamName);
        Assert.Equal("name", Assert.Throws<ArgumentNullException>(() => registry.CreateCounter(null!)).ParamName);
        Assert.Empty(registry.Instruments);
    }

    [Fact]
    public void NonAsciiUnitIsRejected()
    {
        Assert.Equal("unit", Assert.Throws<ArgumentException>(() => _registry.CreateCounter("test.unit", "µs")).ParamName);
    }

    [Fact]
    public void NegativeAddIsRejectedAndNothingIsRecorded()
    {
        PartitionedCounter counter = _registry.CreateCounter("test.negative");
        CounterSeries series = counter.Bind();
        series.Add(7);

        Assert.Equal("value", Assert.Throws<ArgumentOutOfRangeException>(() => series.Add(-1)).ParamName);
        Assert.Equal("value", Assert.Throws<ArgumentOutOfRangeException>(() => counter.Add(-5)).ParamName);
        Assert.Equal("value", Assert.Throws<ArgumentOutOfRangeException>(() => counter.Add(-5, new KeyValuePair<string, object?>("k", "v"))).ParamName);

        Assert.Equal(7, series.Read());
        Assert.Equal(1, counter.SeriesCount);
    }

    [Fact]
    public void NegativeDurationIsRejectedAndNothingIsRecorded()
    {
        OperationData operation = _registry.CreateOperationData("test.negative.duration");
        OperationSeries series = operation.Bind();
        Assert.Equal("elapsed", Assert.Throws<ArgumentOutOfRangeException>(() => series.Record(TimeSpan.FromTicks(-1))).ParamName);
        Assert.Equal("elapsedTimestampTicks", Assert.Throws<ArgumentOutOfRangeException>(() => series.RecordElapsedTicks(-1)).ParamName);
        Assert.Equal(0, series.Read().Count);
    }

    [Theory]
    [InlineData(null)]
    [InlineData("")]
    public void NullOrEmptyTagKeyIsRejectedAndNothingIsRecorded(string? key)
    {
        PartitionedCounter counter = _registry.CreateCounter("test.tags");
        var bad = new KeyValuePair<string, object?>(key!, "value");
        var good = new KeyValuePair<string, object?>("good", "value");

        var e = Assert.Throws<ArgumentException>(() => counter.Add(1, bad));
        Assert.Equal("tags", e.ParamName);
        Assert.Contains(key is null ? "null key" : "empty key", e.Message);
        Assert.Equal("tags", Assert.Throws<ArgumentException>(() => counter.Add(1, good, bad)).ParamName);
        Assert.Equal("tags", Assert.Throws<ArgumentException>(() => counter.Bind(bad)).ParamName);
        Assert.Equal("tags", Assert.Throws<ArgumentException>(() => _registry.CreateOperationData("test.tags.op").Start(bad)).ParamName);

        Assert.Equal(0, counter.SeriesCount);
        Assert.Empty(counter.Collect());
    }

    [Fact]
    public void NullTagValueDuplicateKeyAndUnsupportedTypeAreRejected()
    {
        PartitionedCounter counter = _registry.CreateCounter("test.tag.values");
        Assert.Contains("null value", Assert.Throws<ArgumentException>(() => counter.Add(1, new KeyValuePair<string, object?>("k", null))).Message);
        Assert.Contains("more than once", Assert.Throws<ArgumentException>(() => counter.Add(1, new("k", 1), new("k", 2))).Message);
        Assert.Contains("System.Object", Assert.Throws<ArgumentException>(() => counter.Add(1, new KeyValuePair<string, object?>("k", new object()))).Message);
        Assert.Equal(0, counter.SeriesCount);
    }

    [Fact]
    public void InvalidOptionsAreRejected()
    {
        Assert.Throws<ArgumentOutOfRangeException>(() => new MetricRegistry(new MetricRegistryOptions { MaxSeriesPerInstrument = 1 }));
        Assert.Throws<ArgumentOutOfRangeException>(() => new MetricRegistry(new MetricRegistryOptions { Strategy = (PartitionStrategy)7 }));
        Assert.Throws<ArgumentNullException>(() => new MetricRegistry(null!));
    }
}
