namespace ScalableMetrics.Scaling.Implementations;

/// <summary>The tag keys of the tagged workloads, and prometheus-net's label names for them.</summary>
internal static class RequestTagKeys
{
    public const string Scheme = "url.scheme";
    public const string Method = "http.request.method";
    public const string ProtocolVersion = "network.protocol.version";
    public const string StatusCode = "http.response.status_code";
    public const string Route = "http.route";

    /// <summary>The histogram's tags, in the order ASP.NET Core's <c>HostingMetrics.RequestEnd</c> adds them to its <c>TagList</c>.</summary>
    public static IReadOnlyList<string> HistogramKeys { get; } = [Scheme, Method, ProtocolVersion, StatusCode, Route];

    /// <summary>The tagged counter's tags, in the order they are passed.</summary>
    public static IReadOnlyList<string> CounterKeys { get; } = [Route, Method, StatusCode];

    /// <summary>The Prometheus label name of a tag key, as prometheus-net's users name them: dots become underscores.</summary>
    public static string LabelName(string key) => key.Replace('.', '_');
}
