using System.Diagnostics.Metrics;

namespace ScalableMetrics.Tests.Instruments.Observables;

public class ObservableInstrumentTests
{
    [Fact]
    public void ACollectionExportsWhatTheCallbackReportsInThatCall()
    {
        long sent = 0;
        ObservableCounter counter = new MetricRegistry().CreateObservableCounter(
            "bytes.sent",
            () => [new Measurement<long>(sent, new KeyValuePair<string, object?>("peer", "a")), new Measurement<long>(2 * sent, new KeyValuePair<string, object?>("peer", "b"))],
            "By");

        sent = 10;
        Dictionary<string, double> first = counter.Collect().ToDictionary(r => (string)r.Tags[0].Value!, r => r.Value);
        sent = 25;
        Dictionary<string, double> second = counter.Collect().ToDictionary(r => (string)r.Tags[0].Value!, r => r.Value);

        Assert.Equal(new Dictionary<string, double> { ["a"] = 10, ["b"] = 20 }, first);
        Assert.Equal(new Dictionary<string, double> { ["a"] = 25, ["b"] = 50 }, second);
        Assert.False(counter.IsFloatingPoint);
        Assert.Equal(2, counter.SeriesCount);
    }

    [Fact]
    public void ASeriesTheCallbackStopsReportingIsNoLongerCollected()
    {
        bool reportB = true;
        ObservableGauge gauge = new MetricRegistry().CreateObservableGauge(
            "g",
            () => reportB
                ? [new Measurement<double>(1.5, new KeyValuePair<string, object?>("k", "a")), new Measurement<double>(2.5, new KeyValuePair<string, object?>("k", "b"))]
                : [new Measurement<double>(1.5, new KeyValuePair<string, object?>("k", "a"))]);

        Assert.Equal(2, gauge.Collect().Count);
        reportB = false;

        DoubleReading only = Assert.Single(gauge.Collect());
        Assert.Equal("a", only.Tags[0].Value);
        Assert.True(gauge.IsFloatingPoint);
    }

    [Fact]
    public void OneTagSetReportedTwiceInOneCallIsSummedForCountersAndLastWinsForGauges()
    {
        var registry = new MetricRegistry();
        Measurement<long>[] twice = [new(3, new KeyValuePair<string, object?>("k", "x")), new(4, new KeyValuePair<string, object?>("k", "x"))];
        ObservableCounter counter = registry.CreateObservableCounter("c", () => twice);
        ObservableUpDownCounter upDown = registry.CreateObservableUpDownCounter("u", () => twice);
        ObservableGauge gauge = registry.CreateObservableGauge("g", () => twice);

        Assert.Equal(7, Assert.Single(counter.Collect()).Value);
        Assert.Equal(7, Assert.Single(upDown.Collect()).Value);
        Assert.Equal(4, Assert.Single(gauge.Collect()).Value);
    }

    [Fact]
    public void PastTheSeriesLimitTheOverflowSeriesSumsTheCounterValuesItFolds()
    {
        var registry = new MetricRegistry(new MetricRegistryOptions { MaxSeriesPerInstrument = 2 });
        ObservableCounter counter = registry.CreateObservableCounter(
            "c",
            () => Enumerable.Range(0, 5).Select(i => new Measurement<long>(10 + i, new KeyValuePair<string, object?>("k", i))));

        IReadOnlyList<DoubleReading> readings = counter.Collect();

        Assert.Equal(3, readings.Count);
        Assert.Equal(10 + 11 + 12 + 13 + 14, readings.Sum(r => r.Value));
        Assert.Equal(12 + 13 + 14, Assert.Single(readings, r => r.Tags[0].Key == "otel.metric.overflow").Value);
    }

    [Fact]
    public void TagSetsTheCallbackStoppedReportingDoNotCountTowardTheSeriesLimit()
    {
        var registry = new MetricRegistry(new MetricRegistryOptions { MaxSeriesPerInstrument = 3 });
        int call = 0;
        long total = 0;
        ObservableCounter counter = registry.CreateObservableCounter(
            "jobs.done",
            () => [
                new Measurement<long>(total, new KeyValuePair<string, object?>("job", "current")),
                new Measurement<long>(1, new KeyValuePair<string, object?>("job", "j" + ++call)),
            ]);

        for (int i = 0; i < 8; i++)
        {
            total += 5;
            IReadOnlyList<DoubleReading> readings = counter.Collect();

            Assert.Equal(2, readings.Count);
            Assert.DoesNotContain(readings, r => r.Tags[0].Key == "otel.metric.overflow");
            Assert.Equal(total, Assert.Single(readings, r => (string)r.Tags[0].Value! == "current").Value);
            Assert.Single(readings, r => (string)r.Tags[0].Value! == "j" + call);
            Assert.Equal(2, counter.SeriesCount);
        }
    }

    [Fact]
    public void TagSetsOfACallThatFailedDoNotCountTowardTheNextCollectionsSeriesLimit()
    {
        // The limit counts the tag sets reported in one collection: the call after a failed one
        // reports two new tag sets, within a limit of 2, and gets two series of its own.
        var registry = new MetricRegistry(new MetricRegistryOptions { MaxSeriesPerInstrument = 2 });
        int call = 0;
        ObservableCounter counter = registry.CreateObservableCounter("jobs.done", Report);

        Assert.Equal(2, counter.Collect().Count);
        Assert.Throws<InvalidOperationException>(() => counter.Collect());
        IReadOnlyList<DoubleReading> readings = counter.Collect();

        Assert.DoesNotContain(readings, r => r.Tags[0].Key == "otel.metric.overflow");
        Assert.Equal(["j5", "j6"], readings.Select(r => (string)r.Tags[0].Value!).Order());

        IEnumerable<Measurement<long>> Report()
        {
            call++;
            yield return new Measurement<long>(1, new KeyValuePair<string, object?>("job", "j" + ((2 * call) - 1)));
            yield return new Measurement<long>(1, new KeyValuePair<string, object?>("job", "j" + (2 * call)));
            if (call == 2)
            {
                throw new TimeoutException("backend down");
            }
        }
    }

    [Fact]
    public void ACallbackThatThrowsFailsTheCollectionNamingTheInstrument()
    {
        ObservableGauge gauge = new MetricRegistry().CreateObservableGauge("broken.gauge", (Func<IEnumerable<Measurement<long>>>)(() => throw new TimeoutException("backend down")));

        InvalidOperationException e = Assert.Throws<InvalidOperationException>(() => gauge.Collect());

        Assert.Contains("broken.gauge", e.Message, StringComparison.Ordinal);
        Assert.IsType<TimeoutException>(e.InnerException);
    }

    [Theory]
    [InlineData(-1.0)]
    [InlineData(double.NaN)]
    public void ACounterCallbackReportingANegativeOrNaNTotalFailsTheCollection(double value)
    {
        ObservableCounter counter = new MetricRegistry().CreateObservableCounter("c", () => [new Measurement<double>(value)]);

        InvalidOperationException e = Assert.Throws<InvalidOperationException>(() => counter.Collect());

        Assert.IsType<ArgumentOutOfRangeException>(e.InnerException);
    }

    [Fact]
    public void AnUpDownCounterCallbackMayReportNegativeValuesButNotNaN()
    {
        double value = -2.5;
        ObservableUpDownCounter upDown = new MetricRegistry().CreateObservableUpDownCounter("u", () => [new Measurement<double>(value)]);

        Assert.Equal(-2.5, Assert.Single(upDown.Collect()).Value);
        value = double.NaN;
        Assert.Throws<InvalidOperationException>(() => upDown.Collect());
    }

    [Fact]
    public void BadTagsFromTheCallbackFailTheCollection()
    {
        ObservableGauge gauge = new MetricRegistry().CreateObservableGauge("g", () => [new Measurement<long>(1, new KeyValuePair<string, object?>("le", "1"))]);

        InvalidOperationException e = Assert.Throws<InvalidOperationException>(() => gauge.Collect());

        Assert.IsAssignableFrom<ArgumentException>(e.InnerException);
    }

    [Fact]
    public void AnObservableInstrumentIsCreatedOnceAndANullCallbackIsRefused()
    {
        var registry = new MetricRegistry();
        registry.CreateObservableGauge("g", () => [new Measurement<long>(1)]);

        Assert.Throws<ArgumentException>(() => registry.CreateObservableGauge("g", () => [new Measurement<long>(2)]));
        ArgumentNullException e = Assert.Throws<ArgumentNullException>(() => registry.CreateObservableCounter("c", (Func<IEnumerable<Measurement<long>>>)null!));
        Assert.Equal("observe", e.ParamName);
        Assert.DoesNotContain(registry.Instruments, i => i.Name == "c");
    }

    [Fact]
    public void ConcurrentCollectionsNeverCallTheCallbackTwiceAtOnce()
    {
        int inside = 0;
        int overlaps = 0;
        long calls = 0;
        ObservableCounter counter = new MetricRegistry().CreateObservableCounter(
            "c",
            () =>
            {
                if (Interlocked.Increment(ref inside) != 1)
                {
                    Interlocked.Increment(ref overlaps);
                }

                Thread.SpinWait(200);
                long call = Interlocked.Increment(ref calls);
                Interlocked.Decrement(ref inside);
                return [new Measurement<long>(call)];
            });

        ConcurrentWriters.Run(2, _ =>
        {
            for (int i = 0; i < 2_000; i++)
            {
                Assert.Single(counter.Collect());
            }
        });

        Assert.Equal(0, overlaps);
        Assert.Equal(4_000, Interlocked.Read(ref calls));
    }

    [Fact]
    public void ReportsOfOneTagSetThatAddUpPastTheRangeSaturateInsteadOfWrapping()
    {
        var registry = new MetricRegistry();
        var tag = new KeyValuePair<string, object?>("worker", "a");
        ObservableCounter counter = registry.CreateObservableCounter("c", () => [new Measurement<long>(long.MaxValue - 1, tag), new Measurement<long>(5, tag)]);
        ObservableUpDownCounter upDown = registry.CreateObservableUpDownCounter("u", () => [new Measurement<long>(long.MinValue + 1, tag), new Measurement<long>(-5, tag), new Measurement<long>(long.MinValue, tag)]);
        ObservableUpDownCounter upDownHigh = registry.CreateObservableUpDownCounter("h", () => [new Measurement<long>(long.MaxValue, tag), new Measurement<long>(1, tag)]);
        ObservableCounter doubles = registry.CreateObservableCounter("d", () => [new Measurement<double>(double.MaxValue, tag), new Measurement<double>(double.MaxValue, tag)]);
        ObservableUpDownCounter doublesDown = registry.CreateObservableUpDownCounter("dd", () => [new Measurement<double>(-double.MaxValue, tag), new Measurement<double>(-double.MaxValue / 2, tag)]);
        ObservableCounter infinite = registry.CreateObservableCounter("i", () => [new Measurement<double>(1, tag), new Measurement<double>(double.PositiveInfinity, tag)]);

        Assert.Equal((double)long.MaxValue, Assert.Single(counter.Collect()).Value);
        Assert.Equal((double)long.MinValue, Assert.Single(upDown.Collect()).Value);
        Assert.Equal((double)long.MaxValue, Assert.Single(upDownHigh.Collect()).Value);
        Assert.Equal(double.MaxValue, Assert.Single(doubles.Collect()).Value);
        Assert.Equal(-double.MaxValue, Assert.Single(doublesDown.Collect()).Value);

        // An infinite report is the caller's value, not a sum past the range: it stays infinite.
        Assert.Equal(double.PositiveInfinity, Assert.Single(infinite.Collect()).Value);
    }
}
