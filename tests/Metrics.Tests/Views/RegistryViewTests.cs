using System.Diagnostics;
using ScalableMetrics.Tests.Exemplars;

namespace ScalableMetrics.Tests.Views;

/// <summary>Each kind of view on the registry's own instruments: applied when the instrument is created, and what it changes is what a collection reads.</summary>
public class RegistryViewTests
{
    private static MetricRegistry With(params MetricView[] views)
    {
        var options = new MetricRegistryOptions();
        foreach (MetricView view in views)
        {
            options.Views.Add(view);
        }

        return new MetricRegistry(options);
    }

    private static KeyValuePair<string, object?> Tag(string key, object value) => new(key, value);

    [Fact]
    public void ARenamedCounterIsStoredUnderItsNewNameAndCreatingItAgainReturnsIt()
    {
        MetricRegistry registry = With(new MetricView { Instrument = "test.old", Name = "test.new" });
        PartitionedCounter counter = registry.CreateCounter("test.old", "{request}");
        counter.Add(3);

        Assert.Equal("test.new", counter.Name);
        Assert.Same(counter, registry.CreateCounter("test.old", "{request}"));
        Assert.Equal(["test.new"], registry.Instruments.Select(i => i.Name));
        Assert.Equal(3, Assert.Single(counter.Collect()).Value);
    }

    [Fact]
    public void ADroppedInstrumentTakesAddsButIsNeitherListedNorObserved()
    {
        MetricRegistry registry = With(new MetricView { Instrument = "test.drop.*", Drop = true });
        var observed = new List<string>();
        using IDisposable subscription = registry.ObserveInstruments(i => observed.Add(i.Name));
        PartitionedCounter dropped = registry.CreateCounter("test.drop.me");
        PartitionedCounter kept = registry.CreateCounter("test.kept");
        for (int user = 0; user < 100; user++)
        {
            dropped.Add(1, Tag("user", user));
        }

        Assert.Same(dropped, registry.CreateCounter("test.drop.me"));
        Assert.Equal(["test.kept"], registry.Instruments.Select(i => i.Name));
        Assert.Equal(["test.kept"], observed);

        // Every tag key dropped: one series, whatever the tags, so a dropped instrument's memory stays bounded.
        Assert.Equal(1, dropped.SeriesCount);
        Assert.NotSame(dropped, kept);
    }

    [Fact]
    public void ExcludedTagKeysMakeTagSetsThatDifferOnlyInThemOneSeriesWhoseValuesAdd()
    {
        MetricRegistry registry = With(new MetricView { Instrument = "test.requests", ExcludedTagKeys = ["url.scheme", "user"] });
        PartitionedCounter counter = registry.CreateCounter("test.requests");
        counter.Add(1, Tag("route", "/a"), Tag("url.scheme", "http"), Tag("user", 1));
        counter.Add(2, Tag("route", "/a"), Tag("url.scheme", "https"), Tag("user", 2));
        counter.Bind(Tag("url.scheme", "http"), Tag("route", "/a")).Add(4);
        counter.Add(8, Tag("route", "/b"), Tag("url.scheme", "http"));
        counter.Add(16, Tag("route", "/a"), Tag("url.scheme", "http"), Tag("user", 1));

        Dictionary<string, long> byRoute = counter.Collect().ToDictionary(r => Assert.Single(r.Tags).Value!.ToString()!, r => r.Value);
        Assert.Equal(new Dictionary<string, long> { ["/a"] = 23, ["/b"] = 8 }, byRoute);
        Assert.All(counter.Collect(), r => Assert.Equal("route", Assert.Single(r.Tags).Key));
    }

    [Fact]
    public void AnObservableCountersReportsThatDifferOnlyInADroppedKeyAddUpInOneSeries()
    {
        MetricRegistry registry = With(new MetricView { Instrument = "test.observed", ExcludedTagKeys = ["cpu"] });
        registry.CreateObservableCounter("test.observed", () => new System.Diagnostics.Metrics.Measurement<long>[]
        {
            new(10, Tag("mode", "user"), Tag("cpu", 0)),
            new(20, Tag("mode", "user"), Tag("cpu", 1)),
            new(5, Tag("mode", "system"), Tag("cpu", 0)),
        });

        Instrument observed = Assert.Single(registry.Instruments);
        IReadOnlyList<DoubleReading> readings = ((ObservableCounter)observed).Collect();
        Assert.Equal(new Dictionary<string, double> { ["user"] = 30, ["system"] = 5 }, readings.ToDictionary(r => Assert.Single(r.Tags).Value!.ToString()!, r => r.Value));
    }

    [Fact]
    public void TagKeysKeepOnlyTheListedKeysOnAHistogram()
    {
        MetricRegistry registry = With(new MetricView { Instrument = "test.latency", TagKeys = ["route"] });
        PartitionedHistogram histogram = registry.CreateHistogram("test.latency", "s", boundaries: [1, 2]);
        histogram.Record(0.5, Tag("route", "/a"), Tag("method", "GET"));
        histogram.Record(1.5, Tag("route", "/a"), Tag("method", "POST"));
        histogram.Record(3, Tag("method", "PUT"));

        IReadOnlyList<HistogramReading> readings = histogram.Collect();
        Assert.Equal(2, readings.Count);
        HistogramReading routed = Assert.Single(readings, r => r.Tags.Count == 1);
        Assert.Equal([1L, 1L, 0L], routed.BucketCounts);
        HistogramReading untagged = Assert.Single(readings, r => r.Tags.Count == 0);
        Assert.Equal([0L, 0L, 1L], untagged.BucketCounts);
    }

    [Fact]
    public void AViewsBoundariesReplaceThoseAskedForAndAskingAgainReturnsTheSameHistogram()
    {
        MetricRegistry registry = With(new MetricView { Instrument = "test.rebucketed", HistogramBoundaries = [0.5, 30, 60] });
        PartitionedHistogram histogram = registry.CreateHistogram("test.rebucketed", "s", boundaries: [1, 2, 5]);
        histogram.Record(20);

        Assert.Equal([0.5, 30, 60], histogram.Boundaries);
        Assert.Same(histogram, registry.CreateHistogram("test.rebucketed", "s", boundaries: [1, 2, 5]));
        Assert.Equal([0L, 1L, 0L, 0L], Assert.Single(histogram.Collect()).BucketCounts);

        OperationData operation = With(new MetricView { Instrument = "test.op", HistogramBoundaries = [0.25] }).CreateOperationData("test.op");
        Assert.Equal([0.25], operation.Boundaries);
    }

    public static TheoryData<string, Func<MetricRegistry, Instrument>> BadArgumentsAViewReplaces => new()
    {
        { "boundaries", registry => registry.CreateHistogram("test.rebucketed", boundaries: [2, 1]) },
        { "boundaries", registry => registry.CreateHistogram("test.rebucketed", boundaries: [0, double.NaN]) },
        { "boundaries", registry => registry.CreateOperationData("test.rebucketed", boundaries: []) },
        { "scale", registry => registry.CreateExponentialHistogram("test.native", scale: 99) },
        { "maxBuckets", registry => registry.CreateExponentialHistogram("test.native", maxBuckets: -1) },
    };

    // The caller's argument is bad whatever the configuration: the same call refused in a registry
    // without the view is refused with it too, as .NET refuses bad advice (InstrumentAdvice's
    // boundaries) whatever view a listener has; the XML docs promise the exception unconditionally.
    [Theory]
    [MemberData(nameof(BadArgumentsAViewReplaces))]
    public void BadArgumentsAreRefusedWhereAViewReplacesThem(string parameter, Func<MetricRegistry, Instrument> create)
    {
        Assert.Equal(parameter, Assert.ThrowsAny<ArgumentException>(() => create(new MetricRegistry())).ParamName);

        MetricRegistry registry = With(
            new MetricView { Instrument = "test.rebucketed", HistogramBoundaries = [0.5, 30, 60] },
            new MetricView { Instrument = "test.native", ExponentialHistogramScale = 1, ExponentialHistogramMaxBuckets = 40 });
        Instrument? created = null;
        Exception? refused = Record.Exception(() => created = create(registry));

        Assert.True(refused is ArgumentException { ParamName: var name } && name == parameter, $"expected an ArgumentException naming '{parameter}'; got {refused?.GetType().Name ?? $"none: the {created?.GetType().Name} '{created?.Name}' was created"}");
        Assert.Empty(registry.Instruments);
    }

    [Fact]
    public void AnExponentialViewSetsTheScaleAndMaxBucketsOfAnExponentialHistogram()
    {
        MetricRegistry registry = With(new MetricView { Instrument = "test.native", ExponentialHistogramScale = 1, ExponentialHistogramMaxBuckets = 40 });
        PartitionedExponentialHistogram histogram = registry.CreateExponentialHistogram("test.native", "s");
        Assert.Equal(1, histogram.Scale);
        Assert.Equal(40, histogram.MaxBuckets);
        Assert.Equal(PartitionedExponentialHistogram.DefaultScale, registry.CreateExponentialHistogram("test.other").Scale);
    }

    [Fact]
    public void AViewsScaleThatTheHistogramsRangeDoesNotFitIsRefusedNamingTheView()
    {
        double wideMin = Math.ScaleB(1, -20);
        MetricRegistry registry = With(new MetricView { Instrument = "test.wide", ExponentialHistogramScale = 4 });
        ArgumentOutOfRangeException e = Assert.Throws<ArgumentOutOfRangeException>(() => registry.CreateExponentialHistogram("test.wide", "s", minValue: wideMin));
        Assert.Equal("maxValue", e.ParamName);
        Assert.Contains("Instrument=test.wide", e.Message, StringComparison.Ordinal);
        Assert.Contains("ExponentialHistogramScale", e.Message, StringComparison.Ordinal);
        Assert.Contains("641 buckets", e.Message, StringComparison.Ordinal);
        Assert.Empty(registry.Instruments);

        // The range fits at the histogram's own scale, and a narrow one at the view's.
        Assert.Equal(3, registry.CreateExponentialHistogram("test.other", "s", scale: 3, minValue: wideMin).Scale);
        Assert.Equal(4, registry.CreateExponentialHistogram("test.wide", "s", scale: 8, minValue: 1, maxValue: 2).Scale);
    }

    [Fact]
    public void AnExponentialViewOnAnExplicitRegistryHistogramIsRefusedNamingBoth()
    {
        MetricRegistry registry = With(new MetricView { Instrument = "test.explicit", ExponentialHistogram = true });
        ArgumentException e = Assert.Throws<ArgumentException>(() => registry.CreateHistogram("test.explicit"));
        Assert.Equal("name", e.ParamName);
        Assert.Contains("test.explicit", e.Message, StringComparison.Ordinal);
        Assert.Contains("Instrument=test.explicit", e.Message, StringComparison.Ordinal);
        Assert.Empty(registry.Instruments);
    }

    // MetricView.ExponentialHistogram alone makes a histogram exponential: a view that sets only a
    // scale or most buckets sets them for the exponential histograms it matches, and an explicit
    // histogram or an operation it matches keeps its kind and boundaries.
    [Fact]
    public void AViewThatSetsOnlyAnExponentialScaleLeavesARegistryHistogramAndOperationExplicit()
    {
        MetricRegistry registry = With(new MetricView { Instrument = "test.*", ExponentialHistogramScale = 2, ExponentialHistogramMaxBuckets = 40 });

        Assert.Equal([1.0, 2.0], registry.CreateHistogram("test.explicit", "s", boundaries: [1, 2]).Boundaries);
        Assert.Equal([0.5], registry.CreateOperationData("test.op", boundaries: [0.5]).Boundaries);
        PartitionedExponentialHistogram native = registry.CreateExponentialHistogram("test.native", "s");
        Assert.Equal((2, 40), (native.Scale, native.MaxBuckets));
    }

    [Fact]
    public void ACardinalityLimitOfItsOwnSendsTheRestToTheOverflowSeriesAndOthersKeepTheRegistrys()
    {
        MetricRegistry registry = With(new MetricView { Instrument = "test.limited", CardinalityLimit = 3 });
        PartitionedCounter limited = registry.CreateCounter("test.limited");
        PartitionedCounter other = registry.CreateCounter("test.unlimited");
        for (int i = 0; i < 10; i++)
        {
            limited.Add(1, Tag("id", i));
            other.Add(1, Tag("id", i));
        }

        Assert.Equal(4, limited.SeriesCount);
        Assert.Equal(7, Assert.Single(limited.Collect(), r => r.Tags.Count == 1 && r.Tags[0].Key == "otel.metric.overflow").Value);
        Assert.True(registry.HasOverflowSeries(limited));
        Assert.Equal(10, other.SeriesCount);
        Assert.False(registry.HasOverflowSeries(other));
    }

    [Fact]
    public void AnExemplarFilterOfItsOwnKeepsExemplarsOnlyForTheMatchedInstrument()
    {
        MetricRegistry registry = With(new MetricView { Instrument = "test.traced", ExemplarFilter = ExemplarFilter.TraceBased });
        PartitionedCounter traced = registry.CreateCounter("test.traced");
        PartitionedCounter untraced = registry.CreateCounter("test.untraced");
        using Activity activity = RecordedActivity.Start();
        traced.Add(5);
        untraced.Add(5);

        Assert.Equal(activity.TraceId, Assert.NotNull(Assert.Single(traced.Collect()).Exemplar).TraceId);
        Assert.Null(Assert.Single(untraced.Collect()).Exemplar);
    }

    [Fact]
    public void AViewMatchesTheRegistrysMeterNameAndNotAnother()
    {
        var options = new MetricRegistryOptions();
        options.Views.Add(new MetricView { Meter = "Other.*", Instrument = "*", Drop = true });
        options.Views.Add(new MetricView { Meter = "ScalableMetrics", Instrument = "test.*", Name = null, CardinalityLimit = 2 });
        var registry = new MetricRegistry(options);
        PartitionedCounter counter = registry.CreateCounter("test.mine");
        Assert.Single(registry.Instruments);
        Assert.Equal(2, counter.MaxSeries);

        var other = new MetricRegistry(options, "Other.Meter");
        other.CreateCounter("test.mine");
        Assert.Empty(other.Instruments);
    }

    [Fact]
    public void TwoInstrumentsRenamedToOneNameAreRefusedAtTheSecondNamingBoth()
    {
        MetricRegistry registry = With(
            new MetricView { Instrument = "test.a", Name = "test.c" },
            new MetricView { Instrument = "test.b", Name = "test.c" });
        registry.CreateCounter("test.a");

        ArgumentException e = Assert.Throws<ArgumentException>(() => registry.CreateCounter("test.b"));
        Assert.Equal("name", e.ParamName);
        Assert.Contains("'test.a'", e.Message, StringComparison.Ordinal);
        Assert.Contains("'test.b'", e.Message, StringComparison.Ordinal);
        Assert.Contains("'test.c'", e.Message, StringComparison.Ordinal);
        Assert.Single(registry.Instruments);
    }

    [Fact]
    public void ARenameOntoAnInstrumentOfAnotherKindIsRefusedNamingBoth()
    {
        MetricRegistry registry = With(new MetricView { Instrument = "test.latency", Name = "test.count" });
        registry.CreateCounter("test.count");

        ArgumentException e = Assert.Throws<ArgumentException>(() => registry.CreateHistogram("test.latency"));
        Assert.Contains("PartitionedHistogram 'test.latency'", e.Message, StringComparison.Ordinal);
        Assert.Contains("PartitionedCounter 'test.count'", e.Message, StringComparison.Ordinal);

        // The other way round: the instrument asked for under the renamed name meets the renamed one.
        MetricRegistry other = With(new MetricView { Instrument = "test.x", Name = "test.y" });
        other.CreateCounter("test.x");
        ArgumentException taken = Assert.Throws<ArgumentException>(() => other.CreateGauge("test.y"));
        Assert.Contains("'test.x'", taken.Message, StringComparison.Ordinal);
        Assert.Contains("'test.y'", taken.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void ARenameWhoseExportedNameMeetsAnotherInstrumentsIsRefusedNamingBoth()
    {
        MetricRegistry registry = With(new MetricView { Instrument = "test.a", Name = "test_b" });
        registry.CreateCounter("test.b");

        ArgumentException e = Assert.Throws<ArgumentException>(() => registry.CreateCounter("test.a"));
        Assert.Contains("'test.a'", e.Message, StringComparison.Ordinal);
        Assert.Contains("'test.b'", e.Message, StringComparison.Ordinal);
    }

    public static TheoryData<MetricView, string> InvalidViews => new()
    {
        { new MetricView(), "names no instrument" },
        { new MetricView { Instrument = "test.*", Name = "test.one" }, "without wildcards" },
        { new MetricView { Instrument = "test.a", Name = "1bad" }, "instrument name syntax" },
        { new MetricView { Instrument = "test.a", Drop = true, CardinalityLimit = 5 }, "takes no other setting" },
        { new MetricView { Instrument = "test.a", TagKeys = ["a"], ExcludedTagKeys = ["b"] }, "set one" },
        { new MetricView { Instrument = "test.a", HistogramBoundaries = [1], ExponentialHistogram = true }, "set one" },
        { new MetricView { Instrument = "test.a", HistogramBoundaries = [1], ExponentialHistogramScale = 2 }, "set one" },
        { new MetricView { Instrument = "test.a", HistogramBoundaries = [2, 1] }, "boundaries" },
        { new MetricView { Instrument = "test.a", ExponentialHistogramScale = 9 }, "ExponentialHistogramScale" },
        { new MetricView { Instrument = "test.a", ExponentialHistogramScale = 5 }, "ExponentialHistogramScale 5, not from -4 to 4" },
        { new MetricView { Instrument = "test.a", ExponentialHistogramScale = -5 }, "ExponentialHistogramScale" },
        { new MetricView { Instrument = "test.a", ExponentialHistogramMaxBuckets = 1 }, "ExponentialHistogramMaxBuckets" },
        { new MetricView { Instrument = "test.a", CardinalityLimit = 1 }, "CardinalityLimit" },
        { new MetricView { Instrument = "test.a", ExemplarFilter = (ExemplarFilter)7 }, "ExemplarFilter" },
        { new MetricView { Instrument = "test.a", ExcludedTagKeys = [""] }, "empty tag key" },
    };

    [Theory]
    [MemberData(nameof(InvalidViews))]
    public void AViewThatBreaksARuleMakesCreatingTheRegistryThrowNamingIt(MetricView view, string expected)
    {
        ArgumentException e = Assert.Throws<ArgumentException>(() => With(new MetricView { Instrument = "test.fine" }, view));
        Assert.Equal("options", e.ParamName);
        Assert.Contains("Views[1]", e.Message, StringComparison.Ordinal);
        Assert.Contains(expected, e.Message, StringComparison.Ordinal);
    }
}
