using Prometheus;
using PrometheusMetrics = Prometheus.Metrics;

namespace ScalableMetrics.Scaling.Implementations;

/// <summary>
/// A prometheus-net 8.2.1 histogram with OpenTelemetry's default boundaries (as the other
/// <c>histogram-*</c> implementations have) and three labels, recording the harness's cycle of
/// values (<see cref="HistogramValues"/>) with one label set.
/// </summary>
/// <remarks>
/// Two ids: <c>histogram-prometheus-net</c> takes the child once and calls <c>Observe</c> on it;
/// <c>histogram-prometheus-net-labelled</c> calls <c>histogram.WithLabels(...).Observe(value)</c>
/// on every record. The bucket counts are read from the registry serialized to the text format
/// (<see cref="PrometheusNetText"/>), the sum from the child, and both checked as the other
/// histograms' are (<see cref="HistogramCheck"/>).
/// </remarks>
internal sealed class PrometheusNetHistogram : CountingImplementation
{
    private const string Name = "scaling_records";

    private readonly bool _labelled;
    private CollectorRegistry? _registry;
    private Histogram? _histogram;

    public PrometheusNetHistogram(bool labelled)
    {
        _labelled = labelled;
        Id = labelled ? "histogram-prometheus-net-labelled" : "histogram-prometheus-net";
    }

    public override string Id { get; }

    public override string Description => _labelled
        ? "prometheus-net 8.2.1 Histogram, default boundaries, WithLabels(3 strings).Observe on every record"
        : "prometheus-net 8.2.1 Histogram, default boundaries, child WithLabels(3 strings) taken once, child.Observe";

    /// <summary>A new histogram in <paramref name="registry"/> with the default boundaries and <paramref name="labelNames"/>.</summary>
    public static Histogram NewHistogram(CollectorRegistry registry, string name, params string[] labelNames) =>
        PrometheusMetrics.WithCustomRegistry(registry).CreateHistogram(
            name,
            "Records.",
            labelNames,
            new HistogramConfiguration { Buckets = [.. HistogramValues.DefaultBoundaries] });

    public override void Prepare(int threads)
    {
        _registry = PrometheusMetrics.NewCustomRegistry();
        _histogram = NewHistogram(_registry, Name, [.. RequestTagKeys.CounterKeys.Select(RequestTagKeys.LabelName)]);
    }

    public override long Run(int threadIndex, StopSignal stop) => _labelled
        ? HotLoop.Run(new LabelledRecorder(_histogram!, HistogramValues.Cycle), stop)
        : HotLoop.Run(new ChildRecorder(_histogram!.WithLabels(RequestShapes.Routes[0], RequestShapes.Methods[0], RequestShapes.StatusCodeText[0]), HistogramValues.Cycle), stop);

    public override long ReadTotal()
    {
        string[][] labelSets = [.. _histogram!.GetAllLabelValues()];
        if (labelSets.Length != 1)
        {
            throw new InvalidOperationException($"{Id}: read {labelSets.Length} label sets, expected the one recorded into.");
        }

        Histogram.Child child = _histogram.WithLabels(labelSets[0]);
        long total = HistogramCheck.Total(Id, PrometheusNetText.BucketCounts(_registry!, Name), child.Sum);
        return total == child.Count
            ? total
            : throw new InvalidOperationException($"{Id}: the buckets hold {total} records, the child's count says {child.Count}.");
    }

    /// <summary>Records the next value of the cycle into the child; mutable, so the loop's copy keeps its place.</summary>
    internal struct ChildRecorder(Histogram.Child child, double[] cycle) : IAdder
    {
        private int _next;

        public void Add() => child.Observe(HistogramValues.At(cycle, _next++));
    }

    /// <summary>Records the next value of the cycle with the labels given on every call.</summary>
    internal struct LabelledRecorder(Histogram histogram, double[] cycle) : IAdder
    {
        private int _next;

        public void Add() => histogram.WithLabels(RequestShapes.Routes[0], RequestShapes.Methods[0], RequestShapes.StatusCodeText[0]).Observe(HistogramValues.At(cycle, _next++));
    }
}
