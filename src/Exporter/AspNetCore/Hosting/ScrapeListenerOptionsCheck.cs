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
        else if (options.Host.Any(static c => c is '/' or '?' or '#' or ' '))
        {
            problems.Add($"ScrapeListener.Host must be a host name or address, without scheme, port or path; it is '{Shown(options.Host)}'.");
        }

        return problems.Count == 0 ? null : string.Join(" ", problems);
    }

    private static string Shown(string value) =>
        value.Length <= MaxShownLength ? value : string.Concat(value.AsSpan(0, MaxShownLength), "...");
}
