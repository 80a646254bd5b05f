using ScalableMetrics.Instruments.Observables;

namespace ScalableMetrics.Tests.Instruments.Observables;

/// <summary>
/// The library's own observable instruments report into <see cref="Observations{TValue}"/>
/// rather than returning measurements, and are read as the public ones are: one series per tag
/// set reported in the call, a counter's reports of one tag set added up, a gauge's last kept.
/// </summary>
public sealed class ReportingObservableTests
{
    private static readonly KeyValuePair<string, object?>[] s_a = [new("k", "a")];
    private static readonly KeyValuePair<string, object?>[] s_b = [new("k", "b")];

    [Fact]
    public void ACounterAddsUpAReportedTagSetAndAGaugeKeepsTheLast()
    {
        var registry = new MetricRegistry();
        ObservableCounter counter = registry.CreateObservableCounter<long>("test.reported.counter", o =>
        {
            o.Add(2, s_a);
            o.Add(3, s_b);
            o.Add(5, s_a);
        });
        ObservableGauge gauge = registry.CreateObservableGauge<double>("test.reported.gauge", o =>
        {
            o.Add(1.5, s_a);
            o.Add(4.5, s_a);
        });

        Dictionary<string, double> counted = counter.Collect().ToDictionary(r => (string)r.Tags.AsSpan()[0].Value!, r => r.Value);
        DoubleReading last = Assert.Single(gauge.Collect());

        Assert.Equal(new Dictionary<string, double> { ["a"] = 7, ["b"] = 3 }, counted);
        Assert.Equal(4.5, last.Value);
        Assert.False(counter.IsFloatingPoint);
        Assert.True(gauge.IsFloatingPoint);
    }

    [Fact]
    public void AReportOutsideTheCallIsRefusedAndABadValueFailsTheCollection()
    {
        var registry = new MetricRegistry();
        Observations<long>? kept = null;
        ObservableCounter counter = registry.CreateObservableCounter<long>("test.reported.bad", o =>
        {
            kept = o;
            o.Add(-1, s_a);
        });

        InvalidOperationException failed = Assert.Throws<InvalidOperationException>(() => counter.Collect());
        Assert.IsType<ArgumentOutOfRangeException>(failed.InnerException);
        Assert.Throws<InvalidOperationException>(() => kept!.Add(1, s_a));
    }
}
