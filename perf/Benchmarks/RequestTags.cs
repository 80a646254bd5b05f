namespace ScalableMetrics.Benchmarks;

/// <summary>
/// The tags the tag-lookup benchmarks record with: the first 3 are ASP.NET Core's request tags;
/// the 8 add five more of the kinds a service sets (strings, a bool, an integer). Made once, so
/// that a benchmark's caller boxes nothing.
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
