using Prometheus;
using PrometheusMetrics = Prometheus.Metrics;

namespace ScalableMetrics.Scaling.Implementations;

/// <summary>
/// A prometheus-net 8.2.1 counter with three labels (method, status code, route), made from a
/// factory on a registry of its own, incremented by 1 with one label set.
/// </summary>
/// <remarks>
/// Two ids: <c>prometheus-net</c> takes the child once (<c>counter.WithLabels(...)</c>) and calls
/// <c>Inc()</c> on it, the bound path, to compare with <c>partitioned</c>; <c>prometheus-net-labelled</c>
/// calls <c>counter.WithLabels(...).Inc()</c> on every add, the same string instances each time.
/// The total is the child's <c>Value</c>, a double, exact below 2^53.
/// </remarks>
internal sealed class PrometheusNetCounter : CountingImplementation
{
    private readonly bool _labelled;
    private Counter? _counter;

    public PrometheusNetCounter(bool labelled)
    {
        _labelled = labelled;
        Id = labelled ? "prometheus-net-labelled" : "prometheus-net";
    }

    public override string Id { get; }

    public override string Description => _labelled
        ? "prometheus-net 8.2.1 Counter, WithLabels(3 strings).Inc() on every add"
        : "prometheus-net 8.2.1 Counter, child WithLabels(3 strings) taken once, child.Inc()";

    /// <summary>A new counter with the three label names, in a registry of its own.</summary>
    public static Counter NewCounter() =>
        PrometheusMetrics.WithCustomRegistry(PrometheusMetrics.NewCustomRegistry())
            .CreateCounter("scaling_adds_total", "Adds.", [.. RequestTagKeys.CounterKeys.Select(RequestTagKeys.LabelName)]);

    /// <summary>The child of the one label set every add uses.</summary>
    public static Counter.Child Child(Counter counter) =>
        counter.WithLabels(RequestShapes.Routes[0], RequestShapes.Methods[0], RequestShapes.StatusCodeText[0]);

    public override void Prepare(int threads) => _counter = NewCounter();

    public override long Run(int threadIndex, StopSignal stop) => _labelled
        ? HotLoop.Run(new LabelledAdder(_counter!), stop)
        : HotLoop.Run(new ChildAdder(Child(_counter!)), stop);

    public override long ReadTotal()
    {
        string[][] labelSets = [.. _counter!.GetAllLabelValues()];
        if (labelSets.Length != 1)
        {
            throw new InvalidOperationException($"{Id}: read {labelSets.Length} label sets, expected the one added to.");
        }

        double value = _counter.WithLabels(labelSets[0]).Value;
        return value == Math.Floor(value) && value < 9_007_199_254_740_992
            ? (long)value
            : throw new InvalidOperationException($"{Id}: the counter holds {value}, not a whole number below 2^53.");
    }

    internal readonly struct ChildAdder(Counter.Child child) : IAdder
    {
        public void Add() => child.Inc();
    }

    internal readonly struct LabelledAdder(Counter counter) : IAdder
    {
        public void Add() => counter.WithLabels(RequestShapes.Routes[0], RequestShapes.Methods[0], RequestShapes.StatusCodeText[0]).Inc();
    }
}
