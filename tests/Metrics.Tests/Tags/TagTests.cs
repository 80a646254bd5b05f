namespace ScalableMetrics.Tests.Tags;

public class TagTests
{
    [Fact]
    public void TagOrderDoesNotNameANewSeries()
    {
        PartitionedCounter counter = new MetricRegistry().CreateCounter("test.order");
        counter.Add(1, new("a", "1"), new("b", "2"), new("c", "3"));
        counter.Add(2, new("c", "3"), new("a", "1"), new("b", "2"));
        counter.Add(4, new("b", "2"), new("c", "3"), new("a", "1"));

        CounterReading reading = Assert.Single(counter.Collect());
        Assert.Equal(7, reading.Value);
        Assert.Equal(["a", "b", "c"], reading.Tags.Select(t => t.Key));
    }

    [Fact]
    public void IntegralValuesOfAnyWidthNameTheSameSeries()
    {
        PartitionedCounter counter = new MetricRegistry().CreateCounter("test.widths");
        counter.Add(1, new KeyValuePair<string, object?>("code", 200));
        counter.Add(1, new KeyValuePair<string, object?>("code", 200L));
        counter.Add(1, new KeyValuePair<string, object?>("code", (short)200));

        CounterReading reading = Assert.Single(counter.Collect());
        Assert.Equal(3, reading.Value);
        Assert.IsType<long>(reading.Tags[0].Value);
    }

    [Fact]
    public void NativeIntegersAreIntegralValuesAndTheRestIsRefusedNamed()
    {
        PartitionedCounter counter = new MetricRegistry().CreateCounter("test.native.widths");
        counter.Add(1, new KeyValuePair<string, object?>("code", (nint)200));
        counter.Add(1, new KeyValuePair<string, object?>("code", (nuint)200));
        counter.Add(1, new KeyValuePair<string, object?>("code", 200L));
        Assert.Equal(200L, TagSet.Create(new KeyValuePair<string, object?>("code", (nint)200))[0].Value);

        CounterReading reading = Assert.Single(counter.Collect());
        Assert.Equal(3, reading.Value);
        Assert.Equal(200L, reading.Tags[0].Value);

        // Past long.MaxValue, and types that are not OpenTelemetry's attribute types, are refused, naming the key; nothing is recorded.
        foreach (object value in new object[] { nuint.MaxValue, 1.5m, (Half)1.5, DayOfWeek.Monday })
        {
            ArgumentException e = Assert.Throws<ArgumentException>(() => counter.Add(1, new KeyValuePair<string, object?>("bad", value)));
            Assert.Equal("tags", e.ParamName);
            Assert.Contains("'bad'", e.Message);
        }

        Assert.Single(counter.Collect());
    }

    [Fact]
    public void ValuesThatPrintAlikeNameOneSeriesAndOthersNameTheirOwn()
    {
        PartitionedCounter counter = new MetricRegistry().CreateCounter("test.distinct");
        counter.Add(1, new KeyValuePair<string, object?>("v", "200"));
        counter.Add(1, new KeyValuePair<string, object?>("v", 200));
        counter.Add(1, new KeyValuePair<string, object?>("v", 200.0));
        counter.Add(1, new KeyValuePair<string, object?>("v", 200.5));
        counter.Add(1, new KeyValuePair<string, object?>("v", true));
        counter.Add(1);
        Assert.Equal(4, counter.SeriesCount);
    }

    [Fact]
    public void BindReturnsTheSeriesThatUnboundAddsReach()
    {
        PartitionedCounter counter = new MetricRegistry().CreateCounter("test.bind");
        CounterSeries bound = counter.Bind(new("route", "/a"), new("code", 200));
        Assert.Same(bound, counter.Bind(new("code", 200L), new("route", "/a")));
        counter.Add(5, new("code", 200), new("route", "/a"));
        bound.Add(1);
        Assert.Equal(6, bound.Read());
        Assert.Same(counter.Bind(), counter.Bind());
    }

    [Fact]
    public void SeriesPastTheLimitGoToTheOverflowSeriesAndNothingIsLost()
    {
        var registry = new MetricRegistry(new MetricRegistryOptions { MaxSeriesPerInstrument = 10 });
        PartitionedCounter counter = registry.CreateCounter("test.cardinality");
        for (int i = 0; i < 100; i++)
        {
            counter.Add(1, new KeyValuePair<string, object?>("user", i));
        }

        IReadOnlyList<CounterReading> readings = counter.Collect();
        Assert.Equal(11, readings.Count);
        Assert.Equal(100, readings.Sum(r => r.Value));
        CounterReading overflow = Assert.Single(readings, r => r.Tags.Count == 1 && r.Tags[0].Key == "otel.metric.overflow");
        Assert.Equal(90, overflow.Value);
    }

    [Fact]
    public void TwelveTagsLookUpInAnyOrder()
    {
        PartitionedCounter counter = new MetricRegistry().CreateCounter("test.many");
        KeyValuePair<string, object?>[] tags = [.. Enumerable.Range(0, 12).Select(i => new KeyValuePair<string, object?>($"k{i}", i))];
        counter.Add(1, tags);
        counter.Add(1, [.. tags.Reverse()]);
        Assert.Equal(2, Assert.Single(counter.Collect()).Value);
    }

    [Fact]
    public void ARepeatedKeyNeverMatchesASeriesOfDistinctKeys()
    {
        PartitionedCounter counter = new MetricRegistry().CreateCounter("test.repeated");
        counter.Add(1, new("a", 1), new("b", 1));
        Assert.Contains("more than once", Assert.Throws<ArgumentException>(() => counter.Add(1, new("a", 1), new("a", 1))).Message);
        Assert.Contains("more than once", Assert.Throws<ArgumentException>(() => counter.Add(1, new("b", 1), new("b", 1))).Message);
        Assert.Equal(1, Assert.Single(counter.Collect()).Value);
    }

    [Fact]
    public void MoreThan64TagsStillLookUpInAnyOrder()
    {
        PartitionedCounter counter = new MetricRegistry(new MetricRegistryOptions { MaxTagsPerSeries = 70 }).CreateCounter("test.wide");
        KeyValuePair<string, object?>[] tags = [.. Enumerable.Range(0, 70).Select(i => new KeyValuePair<string, object?>($"k{i}", i))];
        counter.Add(1, tags);
        counter.Add(1, [.. tags.Reverse()]);
        Assert.Equal(2, Assert.Single(counter.Collect()).Value);
    }

    [Fact]
    public void TagSetEqualityIgnoresOrderAndWidth()
    {
        TagSet a = TagSet.Create(new("x", 1), new("y", "z"));
        TagSet b = TagSet.Create(new("y", "z"), new("x", 1L));
        Assert.Equal(a, b);
        Assert.Equal(a.GetHashCode(), b.GetHashCode());
        Assert.NotEqual(a, TagSet.Create(new("x", 2), new("y", "z")));
        Assert.Same(TagSet.Empty, TagSet.Create());
        Assert.Equal("{x=1, y=z}", a.ToString());
    }
}
