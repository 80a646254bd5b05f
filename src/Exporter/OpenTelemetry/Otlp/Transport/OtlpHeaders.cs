using System.Net.Http.Headers;

namespace ScalableMetrics.Exporter.OpenTelemetry.Otlp.Transport;

/// <summary>Checks and adds the configured headers to a request. Thread-safe (no state).</summary>
internal static class OtlpHeaders
{
    // The headers the transport sets itself: a configured one would corrupt the request.
    private static readonly HashSet<string> s_reserved = new(StringComparer.OrdinalIgnoreCase)
    {
        "Content-Type", "Content-Encoding", "Content-Length", "Host", "Transfer-Encoding", "Connection",
        "te", "grpc-encoding", "grpc-timeout", "grpc-accept-encoding",
    };

    /// <summary>Why the header cannot be sent, or null when it can.</summary>
    public static string? Problem(string name, string value)
    {
        if (name.Length == 0 || !name.All(IsTokenChar))
        {
            return $"the name '{name}' is not an HTTP header name.";
        }

        if (s_reserved.Contains(name))
        {
            return $"'{name}' is set by the exporter itself.";
        }

        if (value.AsSpan().IndexOfAny('\r', '\n', '\0') >= 0)
        {
            return $"the value of '{name}' holds a line break or NUL.";
        }

        return null;
    }

    public static void Add(HttpRequestHeaders headers, IEnumerable<KeyValuePair<string, string>> configured)
    {
        foreach (KeyValuePair<string, string> header in configured)
        {
            headers.TryAddWithoutValidation(header.Key, header.Value);
        }
    }

    // RFC 9110's tchar.
    private static bool IsTokenChar(char c) =>
        char.IsAsciiLetterOrDigit(c) || "!#$%&'*+-.^_`|~".Contains(c, StringComparison.Ordinal);
}
