using System.Net.Http.Headers;
using System.Reflection;

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
        if (!IsName(name))
        {
            // Not repeated: a name that is not one may be a whole "name: value" line, credential and all.
            return "a header's name is not an HTTP header name (RFC 9110 token: letters, digits and !#$%&'*+-.^_`|~); it is not repeated here, as it may hold a credential.";
        }

        if (s_reserved.Contains(name))
        {
            return $"'{name}' is set by the exporter itself.";
        }

        if (value.AsSpan().IndexOfAny('\r', '\n', '\0') >= 0)
        {
            return $"the value of '{name}' holds a line break or NUL.";
        }

        // HttpClient sends header values as ASCII and fails every request with one outside it
        // ("Request headers must contain only ASCII characters"); the value is not repeated.
        if (!System.Text.Ascii.IsValid(value))
        {
            return $"the value of '{name}' holds a character outside ASCII, which HttpClient does not send in a header; percent-encode it, or use an encoding the receiver decodes.";
        }

        return null;
    }

    /// <summary>The exporter's <c>User-Agent</c>: <c>ScalableMetrics-OTLP-Exporter-Dotnet/</c> and the
    /// package's version (its informational version, less any <c>+commit</c>), after the OpenTelemetry
    /// specification's "User Agent" (protocol/exporter.md): the exporter, its language, its version.</summary>
    public static readonly string UserAgent = "ScalableMetrics-OTLP-Exporter-Dotnet/" + PackageVersion();

    /// <summary>Adds the configured headers, and <see cref="UserAgent"/> unless they or the client's
    /// default headers name a <c>User-Agent</c> of the application's own, which is sent instead.</summary>
    public static void Add(HttpRequestHeaders headers, IEnumerable<KeyValuePair<string, string>> configured, HttpClient client)
    {
        bool userAgent = client.DefaultRequestHeaders.UserAgent.Count == 0;
        foreach (KeyValuePair<string, string> header in configured)
        {
            headers.TryAddWithoutValidation(header.Key, header.Value);
            userAgent &= !string.Equals(header.Key, "User-Agent", StringComparison.OrdinalIgnoreCase);
        }

        if (userAgent)
        {
            headers.TryAddWithoutValidation("User-Agent", UserAgent);
        }
    }

    /// <summary>Whether <paramref name="name"/> is an HTTP header name: an RFC 9110 token.</summary>
    public static bool IsName(string name) => name.Length > 0 && name.All(IsTokenChar);

    private static string PackageVersion()
    {
        Assembly assembly = typeof(OtlpHeaders).Assembly;
        string version = assembly.GetCustomAttribute<AssemblyInformationalVersionAttribute>()?.InformationalVersion
            ?? assembly.GetName().Version?.ToString()
            ?? "0.0.0";
        int plus = version.IndexOf('+', StringComparison.Ordinal);
        return plus > 0 ? version[..plus] : version;
    }

    // RFC 9110's tchar.
    private static bool IsTokenChar(char c) =>
        char.IsAsciiLetterOrDigit(c) || "!#$%&'*+-.^_`|~".Contains(c, StringComparison.Ordinal);
}
