using System.Net;
using System.Net.Sockets;

namespace ScalableMetrics.Exporter.Hosting;

/// <summary>The one check of <see cref="ScrapeListenerOptions"/>, shared by <see cref="ScalableMetricsOptions.AddScrapeListener"/> and the options validator.</summary>
internal static class ScrapeListenerOptionsCheck
{
    // 0: a port the system picks (the listener's BoundPort, and its log line, say which).
    public const int MinPort = 0;
    public const int MaxPort = 65535;

    // Long input is cut in messages, so that a mistaken configuration value cannot flood the log.
    private const int MaxShownLength = 64;

    /// <summary>What is wrong with <paramref name="options"/>, every problem in one message; null when nothing is.</summary>
    public static string? Problem(ScrapeListenerOptions options)
    {
        var problems = new List<string>();
        if (options.Port is < MinPort or > MaxPort)
        {
            problems.Add($"ScrapeListener.Port must be within {MinPort} to {MaxPort}; it is {options.Port}.");
        }

        if (string.IsNullOrEmpty(options.Path))
        {
            problems.Add("ScrapeListener.Path must not be empty; the default is '/metrics'.");
        }
        else if (options.Path[0] != '/' || options.Path.Any(char.IsWhiteSpace))
        {
            problems.Add($"ScrapeListener.Path must start with '/' and hold no white space; it is '{Shown(options.Path)}'.");
        }

        if (string.IsNullOrWhiteSpace(options.Host))
        {
            problems.Add("ScrapeListener.Host must not be empty; '127.0.0.1' listens on the loopback interface, '*' on every interface.");
        }
        else if (options.Host.Any(static c => c is '/' or '?' or '#' or ' ') || HasPort(options.Host))
        {
            problems.Add($"ScrapeListener.Host must be a host name or address, without scheme, port or path; it is '{Shown(options.Host)}'.");
        }

        return problems.Count == 0 ? null : string.Join(" ", problems);
    }

    // A colon belongs to an IPv6 address only ("::1", "[::1]"); in anything else ("localhost:9464",
    // "127.0.0.1:9464") it is a port, which Port sets, and the name would go to the resolver as is.
    private static bool HasPort(string host)
    {
        if (!host.Contains(':', StringComparison.Ordinal))
        {
            return false;
        }

        string address = host.StartsWith('[') && host.EndsWith(']') ? host[1..^1] : host;
        return address.AsSpan().IndexOfAny('[', ']') >= 0
            || !(IPAddress.TryParse(address, out IPAddress? parsed) && parsed.AddressFamily == AddressFamily.InterNetworkV6);
    }

    private static string Shown(string value) =>
        value.Length <= MaxShownLength ? value : string.Concat(value.AsSpan(0, MaxShownLength), "...");
}
