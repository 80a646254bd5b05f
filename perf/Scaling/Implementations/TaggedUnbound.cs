namespace ScalableMetrics.Scaling.Implementations;

/// <summary>
/// <c>WORKLOAD-unbound</c>: the registry's own instrument, recorded with the same tags on every
/// call (<see cref="PartitionedHistogram.Record(double, ReadOnlySpan{KeyValuePair{string, object}})"/>,
/// <see cref="CounterInstrument{TValue, TSeries}.Add(TValue, ReadOnlySpan{KeyValuePair{string, object}})"/>): the
/// series lookup without the listener in front of it.
/// </summary>
/// <remarks>The tags are passed as <c>params</c>, so the compiler builds them on the stack per
/// record, in the order ASP.NET Core adds them; each point gets a new registry.</remarks>
internal sealed class TaggedUnbound(TaggedWorkload workload) : TaggedImplementation(workload, "unbound")
{
    private PartitionedHistogram? _histogram;
    private PartitionedCounter? _counter;

    public override string Description => $"ScalableMetrics registry instrument, unbound Record/Add with the tags; {Recorded}";

    public override void Prepare(int threads)
    {
        var registry = new MetricRegistry();
        _histogram = Workload.IsHistogram ? registry.CreateHistogram(TaggedWorkload.HistogramName, "s", "Duration of HTTP server requests.", RequestDurations.Boundaries) : null;
        _counter = Workload.IsHistogram ? null : registry.CreateCounter(TaggedWorkload.CounterName, "{request}");
    }

    public override long Run(int threadIndex, StopSignal stop) => Workload.IsHistogram
        ? HotLoop.Run(new Recorder(_histogram!, Workload.RouteMask), stop)
        : HotLoop.Run(new Adder(_counter!, Workload.RouteMask), stop);

    public override long ReadTotal()
    {
        List<TaggedSeries> series = Workload.IsHistogram
            ? [.. _histogram!.Collect().Select(static r => new TaggedSeries(TaggedSeries.KeyOf(r.Tags), r.Count, r.Sum))]
            : [.. _counter!.Collect().Select(static r => new TaggedSeries(TaggedSeries.KeyOf(r.Tags), r.Value, 0))];
        return TaggedCheck.Total(Id, Workload, series);
    }

    /// <summary>One request's duration with ASP.NET Core's 5 tags.</summary>
    internal struct Recorder(PartitionedHistogram histogram, int routeMask) : IAdder
    {
        private int _next;

        public void Add()
        {
            int index = _next++;
            int route = index & routeMask;
            histogram.Record(
                RequestDurations.At(index),
                new KeyValuePair<string, object?>(RequestTagKeys.Scheme, RequestShapes.Scheme),
                new KeyValuePair<string, object?>(RequestTagKeys.Method, RequestShapes.Methods[route]),
                new KeyValuePair<string, object?>(RequestTagKeys.ProtocolVersion, RequestShapes.ProtocolVersion),
                new KeyValuePair<string, object?>(RequestTagKeys.StatusCode, RequestShapes.BoxedStatusCode(RequestShapes.StatusCodes[route])),
                new KeyValuePair<string, object?>(RequestTagKeys.Route, RequestShapes.Routes[route]));
        }
    }

    /// <summary>One <c>counter.Add(1, route, method, status code)</c>.</summary>
    internal struct Adder(PartitionedCounter counter, int routeMask) : IAdder
    {
        private int _next;

        public void Add()
        {
            int route = _next++ & routeMask;
            counter.Add(
                1,
                new KeyValuePair<string, object?>(RequestTagKeys.Route, RequestShapes.Routes[route]),
                new KeyValuePair<string, object?>(RequestTagKeys.Method, RequestShapes.Methods[route]),
                new KeyValuePair<string, object?>(RequestTagKeys.StatusCode, RequestShapes.BoxedStatusCode(RequestShapes.StatusCodes[route])));
        }
    }
}
