namespace ScalableMetrics.Benchmarks;

/// <summary>
/// The tags the tag-lookup benchmarks record with: the first 5 are ASP.NET Core's request tags
/// (method, status code, route, scheme, protocol version); the 8 add three more of the kinds a
/// service sets (a string, a bool, an integer). Made once, so that a benchmark's caller boxes
/// nothing and passes the same string instances on every call.
/// </summary>
internal static class RequestTags
{
    public static KeyValuePair<string, object?>[] All { get; } =
    [
        new("http.request.method", "GET"),
        new("http.response.status_code", 200),
        new("http.route", "/api/orders/{id}"),
        new("url.scheme", "https"),
        new("network.protocol.version", "1.1"),
        new("server.address", "orders.internal.example.com"),
        new("error.retried", false),
        new("server.port", 8080),
    ];
}
