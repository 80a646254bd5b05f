using System.Diagnostics;

namespace ScalableMetrics.Samples.WebApi;

/// <summary>
/// Counts every request in <c>webapi.requests</c> (tags <c>http.route</c> and
/// <c>http.response.status_code</c>), times it in the histogram <c>webapi.request.duration</c>
/// (seconds, tag <c>http.route</c>, ASP.NET Core's advised boundaries) and keeps the requests in
/// flight in the up-down counter <c>webapi.requests.in_flight</c> (tag <c>http.route</c>).
/// </summary>
/// <remarks>
/// The count is recorded when the response starts, before its first byte is sent, so a client
/// that has its response and then scrapes <c>/metrics</c> always finds its request counted. The
/// duration is recorded, and the request leaves the in-flight count, when the rest of the
/// pipeline returns. An exception that escapes the pipeline before the response starts becomes a
/// 500 here, so that it is counted too.
/// </remarks>
public sealed class RequestMetricsMiddleware
{
    /// <summary>The <c>http.route</c> of requests no endpoint matched: one value keeps the cardinality bounded.</summary>
    public const string UnmatchedRoute = "unmatched";

    /// <summary>
    /// The duration histogram's bucket boundaries, in seconds: those ASP.NET Core advises for its
    /// own <c>http.server.request.duration</c> (<c>Microsoft.AspNetCore.Hosting</c>'s
    /// <c>HostingMetrics</c>, after OpenTelemetry's HTTP semantic conventions).
    /// </summary>
    public static readonly IReadOnlyList<double> DurationBoundaries = [0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10];

    private const string RouteTag = "http.route";
    private const string StatusCodeTag = "http.response.status_code";

    // Boxed once: tagging with a fresh box per request would allocate on every request.
    private static readonly object[] s_statusCodes = [.. Enumerable.Range(0, 600).Select(static code => (object)code)];

    private readonly RequestDelegate _next;
    private readonly ILogger<RequestMetricsMiddleware> _logger;
    private readonly PartitionedCounter _requests;
    private readonly PartitionedHistogram _duration;
    private readonly PartitionedUpDownCounter _inFlight;
    private readonly Func<object, Task> _countRequest;

    /// <summary>Creates the middleware and its instruments.</summary>
    /// <param name="next">The rest of the pipeline.</param>
    /// <param name="registry">The registry the instruments are created in.</param>
    /// <param name="logger">Logs the exceptions turned into 500s.</param>
    /// <param name="endpoints">The application's endpoints, whose duration and in-flight series start at zero.</param>
    public RequestMetricsMiddleware(RequestDelegate next, MetricRegistry registry, ILogger<RequestMetricsMiddleware> logger, EndpointDataSource endpoints)
    {
        _next = next;
        _logger = logger;
        _requests = registry.CreateCounter("webapi.requests", "{request}", "HTTP requests answered, by route and status code.");
        _duration = registry.CreateHistogram("webapi.request.duration", "s", "Time spent handling HTTP requests, by route.", DurationBoundaries);
        _inFlight = registry.CreateUpDownCounter("webapi.requests.in_flight", "{request}", "HTTP requests being handled, by route.");
        _countRequest = CountRequest;

        // Every route's series exists from the start, at zero, as Prometheus advises for label
        // values known in advance: rate() and histogram_quantile() then have a zero to start
        // from, even when a route's first requests all fall between two scrapes.
        foreach (string route in endpoints.Endpoints.OfType<RouteEndpoint>().Select(static e => e.RoutePattern.RawText).OfType<string>().Append(UnmatchedRoute).Distinct())
        {
            var tag = new KeyValuePair<string, object?>(RouteTag, route);
            _duration.Bind(tag);
            _inFlight.Bind(tag);
        }
    }

    /// <summary>Runs the rest of the pipeline, counting and timing the request.</summary>
    /// <param name="context">The request's context.</param>
    /// <returns>A task that completes when the request is handled.</returns>
    public async Task InvokeAsync(HttpContext context)
    {
        long started = Stopwatch.GetTimestamp();
        var route = new KeyValuePair<string, object?>(RouteTag, RouteOf(context));
        _inFlight.Add(1, route);
        context.Response.OnStarting(_countRequest, context);
        try
        {
            await _next(context);
        }
        catch (Exception exception) when (!context.Response.HasStarted)
        {
            _logger.LogError(exception, "Unhandled exception; answering 500.");
            context.Response.Clear();
            context.Response.StatusCode = StatusCodes.Status500InternalServerError;
        }
        finally
        {
            _duration.Record(Stopwatch.GetElapsedTime(started).TotalSeconds, route);
            _inFlight.Add(-1, route);
        }
    }

    private static string RouteOf(HttpContext context) =>
        (context.GetEndpoint() as RouteEndpoint)?.RoutePattern.RawText ?? UnmatchedRoute;

    private Task CountRequest(object state)
    {
        var context = (HttpContext)state;
        int status = context.Response.StatusCode;
        object boxedStatus = (uint)status < (uint)s_statusCodes.Length ? s_statusCodes[status] : status;
        _requests.Add(1, new(RouteTag, RouteOf(context)), new(StatusCodeTag, boxedStatus));
        return Task.CompletedTask;
    }
}
