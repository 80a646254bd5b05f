namespace ScalableMetrics.Scaling.Implementations;

/// <summary>
/// One of the tagged workloads: what is recorded, with which tags, over how many routes. The
/// implementation ids are <c>WORKLOAD-IMPL</c>, e.g. <c>aspnetcore-histogram-hot-addmeter</c>.
/// </summary>
/// <param name="Id">The workload's part of the ids.</param>
/// <param name="IsHistogram">True for <c>http.server.request.duration</c> recorded with ASP.NET
/// Core's 5 tags (<see cref="RequestDurations"/>); false for a counter added to with 3 tags.</param>
/// <param name="Routes">How many of <see cref="RequestShapes.Routes"/> it cycles through: 8 (<c>-spread</c>) or 1 (<c>-hot</c>).</param>
internal sealed record TaggedWorkload(string Id, bool IsHistogram, int Routes)
{
    /// <summary>The histogram's name, unit and description, as ASP.NET Core's hosting metrics create it.</summary>
    public const string HistogramName = "http.server.request.duration";

    /// <summary>The tagged counter's name.</summary>
    public const string CounterName = "app.requests";

    /// <summary>The four workloads, in the order the catalog lists them.</summary>
    public static IReadOnlyList<TaggedWorkload> All { get; } =
    [
        new("aspnetcore-histogram-spread", IsHistogram: true, RequestShapes.RouteCount),
        new("aspnetcore-histogram-hot", IsHistogram: true, 1),
        new("tagged-counter-spread", IsHistogram: false, RequestShapes.RouteCount),
        new("tagged-counter-hot", IsHistogram: false, 1),
    ];

    /// <summary>The mask that turns a record's index into its route: 7 or 0.</summary>
    public int RouteMask => Routes - 1;

    /// <summary>The tag keys of one record, in the order they are added.</summary>
    public IReadOnlyList<string> TagKeys => IsHistogram ? RequestTagKeys.HistogramKeys : RequestTagKeys.CounterKeys;

    /// <summary>The tag values of a record of route <paramref name="route"/>, in <see cref="TagKeys"/> order, as text.</summary>
    public string[] TagValues(int route) => IsHistogram
        ? [RequestShapes.Scheme, RequestShapes.Methods[route], RequestShapes.ProtocolVersion, RequestShapes.StatusCodeText[route], RequestShapes.Routes[route]]
        : [RequestShapes.Routes[route], RequestShapes.Methods[route], RequestShapes.StatusCodeText[route]];
}
