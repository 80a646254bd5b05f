using System.Diagnostics;
using System.Diagnostics.Metrics;
using SdmInstrument = System.Diagnostics.Metrics.Instrument;

namespace ScalableMetrics.Scaling.Implementations;

/// <summary>
/// An implementation of a tagged workload (<see cref="TaggedWorkload"/>): the id is
/// <c>WORKLOAD-KIND</c>, KIND one of <see cref="Kinds"/>.
/// </summary>
/// <remarks>
/// <c>addmeter</c>, <c>opentelemetry</c> and <c>noop-listener</c> run the very same recording code
/// on a <c>System.Diagnostics.Metrics</c> instrument (<see cref="RunInstrument"/>); they differ only
/// in who listens. <c>unbound</c> and <c>prometheus-net</c> record the same tags through their own
/// instruments' APIs.
/// </remarks>
internal abstract class TaggedImplementation : CountingImplementation
{
    private static int s_lastMeter;

    protected TaggedImplementation(TaggedWorkload workload, string kind)
    {
        Workload = workload;
        Id = $"{workload.Id}-{kind}";
    }

    /// <summary>The implementation kinds, in the order the catalog lists them.</summary>
    public static IReadOnlyList<string> Kinds { get; } = ["addmeter", "unbound", "opentelemetry", "prometheus-net", "noop-listener"];

    public override string Id { get; }

    /// <summary>The workload this implementation records.</summary>
    protected TaggedWorkload Workload { get; }

    /// <summary>What every implementation of the workload records, for the descriptions.</summary>
    protected string Recorded => (Workload.IsHistogram
        ? "http.server.request.duration (s, ASP.NET Core's boundaries), 5 tags built per record as HostingMetrics does"
        : "a counter, Add(1) with 3 tags") + (Workload.Routes == 1 ? ", one route" : $", {Workload.Routes} routes in turn");

    /// <summary>Creates the implementation of <paramref name="kind"/> for <paramref name="workload"/>.</summary>
    public static TaggedImplementation Create(TaggedWorkload workload, string kind) => kind switch
    {
        "addmeter" => new TaggedAddMeter(workload),
        "unbound" => new TaggedUnbound(workload),
        "opentelemetry" => new TaggedOpenTelemetry(workload),
        "prometheus-net" => new TaggedPrometheusNet(workload),
        "noop-listener" => new TaggedNoopListener(workload),
        _ => throw new ArgumentException($"Unknown tagged implementation kind '{kind}'.", nameof(kind)),
    };

    /// <summary>A meter name no other point has used, so that a point's listener takes only its own instrument.</summary>
    protected static string NewMeterName() => $"ScalableMetrics.Scaling.Tagged.{Interlocked.Increment(ref s_lastMeter)}";

    /// <summary>Creates the workload's instrument on <paramref name="meter"/>, as ASP.NET Core (or an application) creates it.</summary>
    protected SdmInstrument CreateInstrument(Meter meter) => Workload.IsHistogram
        ? meter.CreateHistogram(
            TaggedWorkload.HistogramName,
            "s",
            "Duration of HTTP server requests.",
            tags: null,
            advice: new InstrumentAdvice<double> { HistogramBucketBoundaries = RequestDurations.Boundaries })
        : meter.CreateCounter<long>(TaggedWorkload.CounterName, "{request}");

    /// <summary>Records the workload into <paramref name="instrument"/> until <paramref name="stop"/> is set.</summary>
    protected long RunInstrument(SdmInstrument instrument, StopSignal stop) => Workload.IsHistogram
        ? HotLoop.Run(new DurationRecorder((Histogram<double>)instrument, Workload.RouteMask), stop)
        : HotLoop.Run(new CounterAdder((Counter<long>)instrument, Workload.RouteMask), stop);

    /// <summary>
    /// One request's <c>http.server.request.duration</c>, recorded the way ASP.NET Core's
    /// <c>HostingMetrics.RequestEnd</c> records it: a new <see cref="TagList"/>, the scheme and method,
    /// the protocol version, the boxed status code and the route, in that order.
    /// </summary>
    internal struct DurationRecorder(Histogram<double> histogram, int routeMask) : IAdder
    {
        private int _next;

        public void Add()
        {
            int index = _next++;
            int route = index & routeMask;
            var tags = default(TagList);
            tags.Add(RequestTagKeys.Scheme, RequestShapes.Scheme);
            tags.Add(RequestTagKeys.Method, RequestShapes.Methods[route]);
            tags.Add(RequestTagKeys.ProtocolVersion, RequestShapes.ProtocolVersion);
            tags.Add(RequestTagKeys.StatusCode, RequestShapes.BoxedStatusCode(RequestShapes.StatusCodes[route]));
            tags.Add(RequestTagKeys.Route, RequestShapes.Routes[route]);
            histogram.Record(RequestDurations.At(index), tags);
        }
    }

    /// <summary>One <c>counter.Add(1, route, method, status code)</c>, as application code writes it.</summary>
    internal struct CounterAdder(Counter<long> counter, int routeMask) : IAdder
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
