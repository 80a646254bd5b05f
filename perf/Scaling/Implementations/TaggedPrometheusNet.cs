using Prometheus;
using PrometheusMetrics = Prometheus.Metrics;

namespace ScalableMetrics.Scaling.Implementations;

/// <summary>
/// <c>WORKLOAD-prometheus-net</c>: prometheus-net 8.2.1, the way its users write it: a histogram
/// (with the same boundaries) or counter made once with its label names from a factory on a
/// registry, then <c>WithLabels(...)</c> with the label values as strings on every record.
/// </summary>
/// <remarks>The label values are the same string instances every time, the status codes strings
/// made once (<see cref="RequestShapes.StatusCodeText"/>). Each point gets a new registry; the
/// series are read back through prometheus-net's API: every label set it holds
/// (<c>GetAllLabelValues</c>), and each one's count and sum, or value.</remarks>
internal sealed class TaggedPrometheusNet(TaggedWorkload workload) : TaggedImplementation(workload, "prometheus-net")
{
    private Histogram? _histogram;
    private Counter? _counter;

    public override string Description => $"prometheus-net 8.2.1, WithLabels(strings) per record; {Recorded}";

    public override void Prepare(int threads)
    {
        IMetricFactory factory = PrometheusMetrics.WithCustomRegistry(PrometheusMetrics.NewCustomRegistry());
        string[] labelNames = [.. Workload.TagKeys.Select(RequestTagKeys.LabelName)];
        _histogram = Workload.IsHistogram
            ? factory.CreateHistogram("http_server_request_duration_seconds", "Duration of HTTP server requests.", labelNames, new HistogramConfiguration { Buckets = RequestDurations.Boundaries })
            : null;
        _counter = Workload.IsHistogram ? null : factory.CreateCounter("app_requests_total", "Requests.", labelNames);
    }

    public override long Run(int threadIndex, StopSignal stop) => Workload.IsHistogram
        ? HotLoop.Run(new Recorder(_histogram!, Workload.RouteMask), stop)
        : HotLoop.Run(new Adder(_counter!, Workload.RouteMask), stop);

    public override long ReadTotal()
    {
        List<TaggedSeries> series = Workload.IsHistogram
            ? [.. _histogram!.GetAllLabelValues().Select(labels => new TaggedSeries(Key(labels), _histogram.WithLabels(labels).Count, _histogram.WithLabels(labels).Sum))]
            : [.. _counter!.GetAllLabelValues().Select(labels => new TaggedSeries(Key(labels), Whole(_counter.WithLabels(labels).Value), 0))];
        return TaggedCheck.Total(Id, Workload, series);
    }

    private string Key(string[] labelValues) => TaggedSeries.KeyOf(Workload.TagKeys, labelValues);

    // prometheus-net counts in doubles: exact here, as long as the count stays below 2^53.
    private long Whole(double value) => value == Math.Floor(value) && value < 9_007_199_254_740_992
        ? (long)value
        : throw new InvalidOperationException($"{Id}: a counter holds {value}, not a whole number below 2^53.");

    /// <summary>One request's duration, <c>WithLabels(scheme, method, protocol, status, route).Observe(seconds)</c>.</summary>
    internal struct Recorder(Histogram histogram, int routeMask) : IAdder
    {
        private int _next;

        public void Add()
        {
            int index = _next++;
            int route = index & routeMask;
            histogram
                .WithLabels(RequestShapes.Scheme, RequestShapes.Methods[route], RequestShapes.ProtocolVersion, RequestShapes.StatusCodeText[route], RequestShapes.Routes[route])
                .Observe(RequestDurations.At(index));
        }
    }

    /// <summary>One <c>WithLabels(route, method, status).Inc()</c>.</summary>
    internal struct Adder(Counter counter, int routeMask) : IAdder
    {
        private int _next;

        public void Add()
        {
            int route = _next++ & routeMask;
            counter.WithLabels(RequestShapes.Routes[route], RequestShapes.Methods[route], RequestShapes.StatusCodeText[route]).Inc();
        }
    }
}
