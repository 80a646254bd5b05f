namespace ScalableMetrics.Tests.Instruments.Observables;

/// <summary>An observer's failure neither half-registers an instrument nor hides it from the other observers.</summary>
public class ObserverFailureTests
{
    [Fact]
    public void AThrowingObserverDoesNotHideTheInstrumentFromTheOthers()
    {
        var registry = new MetricRegistry();
        var before = new List<string>();
        var after = new List<string>();
        registry.ObserveInstruments(i => before.Add(i.Name));
        registry.ObserveInstruments(_ => throw new InvalidOperationException("observer one failed"));
        registry.ObserveInstruments(_ => throw new FormatException("observer two failed"));
        registry.ObserveInstruments(i => after.Add(i.Name));

        var e = Assert.Throws<AggregateException>(() => registry.CreateCounter("test.observed"));
        Assert.Equal(2, e.InnerExceptions.Count);
        Assert.Contains("'test.observed' was created", e.Message);
        Assert.Equal(["test.observed"], before);
        Assert.Equal(["test.observed"], after);

        // The instrument exists: creating it again returns it, and calls no observer again.
        PartitionedCounter counter = Assert.IsType<PartitionedCounter>(Assert.Single(registry.Instruments));
        Assert.Same(counter, registry.CreateCounter("test.observed"));
        Assert.Equal(["test.observed"], after);
    }

    [Fact]
    public void AnObserverThatThrowsDuringItsReplayIsNotSubscribed()
    {
        var registry = new MetricRegistry();
        registry.CreateCounter("test.first");
        int calls = 0;
        Assert.Throws<InvalidOperationException>(() => registry.ObserveInstruments(_ =>
        {
            calls++;
            throw new InvalidOperationException("replay failed");
        }));

        registry.CreateCounter("test.second");
        Assert.Equal(1, calls);
    }
}
