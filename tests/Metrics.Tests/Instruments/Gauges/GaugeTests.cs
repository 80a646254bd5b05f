namespace ScalableMetrics.Tests.Instruments.Gauges;

public class GaugeTests
{
    private static KeyValuePair<string, object?> Tag(string key, object? value) => new(key, value);

    [Fact]
    public void ASeriesHoldsTheLastValueSet()
    {
        Gauge gauge = new MetricRegistry().CreateGauge("queue.length", "{item}");
        gauge.Set(5, Tag("queue", "a"));
        gauge.Set(-3, Tag("queue", "a"));
        gauge.Set(7, Tag("queue", "b"));

        Dictionary<string, long> values = gauge.Collect().ToDictionary(r => (string)r.Tags[0].Value!, r => r.Value);

        Assert.Equal(new Dictionary<string, long> { ["a"] = -3, ["b"] = 7 }, values);
        Assert.Equal(-3, gauge.Bind(Tag("queue", "a")).Read());
    }

    [Fact]
    public void ASeriesBoundButNeverSetIsNotCollected()
    {
        Gauge gauge = new MetricRegistry().CreateGauge("pool.size");
        GaugeSeries bound = gauge.Bind(Tag("pool", "idle"));

        Assert.Null(bound.Read());
        Assert.Empty(gauge.Collect());
        Assert.Equal(1, gauge.SeriesCount);

        bound.Set(0);
        LongReading reading = Assert.Single(gauge.Collect());
        Assert.Equal(0, reading.Value);
    }

    [Fact]
    public void ADoubleGaugeTakesNaNAndInfinities()
    {
        DoubleGauge gauge = new MetricRegistry().CreateDoubleGauge("ratio");
        gauge.Set(double.NaN, Tag("k", "nan"));
        gauge.Set(double.PositiveInfinity, Tag("k", "inf"));
        gauge.Set(0.25, Tag("k", "quarter"));

        Dictionary<string, double> values = gauge.Collect().ToDictionary(r => (string)r.Tags[0].Value!, r => r.Value);

        Assert.True(double.IsNaN(values["nan"]));
        Assert.Equal(double.PositiveInfinity, values["inf"]);
        Assert.Equal(0.25, values["quarter"]);
    }

    [Fact]
    public void BadTagsThrowAndCreateNoSeries()
    {
        Gauge gauge = new MetricRegistry().CreateGauge("g");

        ArgumentException e = Assert.ThrowsAny<ArgumentException>(() => gauge.Set(1, new KeyValuePair<string, object?>("", "v")));

        Assert.Contains("key", e.Message, StringComparison.OrdinalIgnoreCase);
        Assert.Equal(0, gauge.SeriesCount);
        Assert.Empty(gauge.Collect());
    }

    [Fact]
    public void PastTheSeriesLimitNewTagSetsShareTheOverflowSeriesWhichHoldsTheLastOfThem()
    {
        Gauge gauge = new MetricRegistry(new MetricRegistryOptions { MaxSeriesPerInstrument = 2 }).CreateGauge("g");
        gauge.Set(1, Tag("k", "1"));
        gauge.Set(2, Tag("k", "2"));
        gauge.Set(30, Tag("k", "3"));
        gauge.Set(40, Tag("k", "4"));

        IReadOnlyList<LongReading> readings = gauge.Collect();

        Assert.Equal(3, readings.Count);
        LongReading overflow = Assert.Single(readings, r => r.Tags.Count == 1 && r.Tags[0].Key == "otel.metric.overflow");
        Assert.Equal(40, overflow.Value);
    }

    [Fact]
    public void ConcurrentSetsAndReadsNeverSeeAValueNobodySet()
    {
        // Each writer sets values whose two halves are equal, so a torn 8-byte value would show as unequal halves.
        GaugeSeries series = new MetricRegistry().CreateGauge("g").Bind();
        series.Set(0);
        int tornReads = 0;
        ConcurrentWriters.Run(
            2,
            writer =>
            {
                for (long i = 1; i <= 200_000; i++)
                {
                    long half = (i << 1) | (uint)writer;
                    series.Set((half << 32) | half);
                }
            },
            whileRunning: () =>
            {
                long value = series.Read()!.Value;
                if ((value >> 32) != (value & 0xFFFF_FFFF))
                {
                    tornReads++;
                }
            });

        Assert.Equal(0, tornReads);
        long last = series.Read()!.Value;
        Assert.Equal(last >> 32, last & 0xFFFF_FFFF);
        Assert.Equal(200_000, (last & 0xFFFF_FFFF) >> 1);
    }

    [Fact]
    public void AGaugeExportsUnderItsOwnNameAndCollidesWithACounterThatWouldWriteIt()
    {
        var registry = new MetricRegistry();
        registry.CreateGauge("req.total");

        ArgumentException e = Assert.Throws<ArgumentException>(() => registry.CreateCounter("req"));

        Assert.Contains("req_total", e.Message, StringComparison.Ordinal);
        Assert.Equal("name", e.ParamName);
    }
}
