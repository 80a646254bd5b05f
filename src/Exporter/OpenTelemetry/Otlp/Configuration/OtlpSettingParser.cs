using System.Globalization;
using ScalableMetrics.Exporter.OpenTelemetry.Otlp.Transport;

namespace ScalableMetrics.Exporter.OpenTelemetry.Otlp.Configuration;

/// <summary>
/// Parses one setting's text, adding a problem that names the setting's key to
/// <see cref="ScalableMetricsOtlpOptions.Problems"/> when it cannot, and leaving the option as it was.
/// Thread-safe (no state).
/// </summary>
internal static class OtlpSettingParser
{
    // Every duration of the exporter: positive, and at most a day (as the scrape timeout is).
    private static readonly TimeSpan s_longest = TimeSpan.FromDays(1);

    /// <summary>Parses one setting's text into <paramref name="value"/>, or adds a problem naming <paramref name="key"/> and returns false.</summary>
    public delegate bool Parser<T>(ScalableMetricsOtlpOptions options, string key, string text, out T value);

    /// <summary>
    /// Where <paramref name="text"/> is given (neither null nor empty), parses it by
    /// <paramref name="parse"/> and, where it parses, calls <paramref name="set"/> with the value:
    /// the one step of every setting the section and the environment variables read.
    /// </summary>
    public static void Apply<T>(ScalableMetricsOtlpOptions options, string key, string? text, Parser<T> parse, Action<T> set)
    {
        if (text is { Length: > 0 } && parse(options, key, text, out T value))
        {
            set(value);
        }
    }

    /// <summary>A file's path, which must name a file that exists (certificates and keys).</summary>
    public static bool TryFile(ScalableMetricsOtlpOptions options, string key, string text, out string value)
    {
        value = text.Trim();
        if (File.Exists(value))
        {
            return true;
        }

        options.Problems.Add($"{key} '{text}' is not a file that exists.");
        return false;
    }

    public static bool TryUri(ScalableMetricsOtlpOptions options, string key, string text, out Uri? uri)
    {
        if (Uri.TryCreate(text.Trim(), UriKind.Absolute, out uri) && (uri.Scheme == Uri.UriSchemeHttp || uri.Scheme == Uri.UriSchemeHttps))
        {
            return true;
        }

        options.Problems.Add($"{key} {Shown(text)} is not an absolute http or https URL.");
        return false;
    }

    /// <summary>A URL's text as a message may repeat it: quoted, unless it has an <c>@</c>, which may
    /// follow a user name and password (a message of a failed start is logged), and without its
    /// query, which may hold a key (<c>?api-key=...</c>).</summary>
    public static string Shown(string text)
    {
        if (text.Contains('@', StringComparison.Ordinal))
        {
            return "(not repeated: it has an '@', which may follow a password)";
        }

        int query = text.IndexOf('?', StringComparison.Ordinal);
        return query < 0 ? $"'{text}'" : $"'{text[..query]}' (its query not repeated: it may hold a key)";
    }

    /// <summary>The endpoint as a log line or a message may repeat it: <c>scheme://host:port/path</c>
    /// (the port where it is not the scheme's), without a user name and password (refused at
    /// start) or a query, which some receivers take a key in (<c>?api-key=...</c>), or a fragment.</summary>
    public static string ShownEndpoint(Uri endpoint) =>
        endpoint.IsAbsoluteUri
            ? endpoint.GetComponents(UriComponents.SchemeAndServer | UriComponents.Path, UriFormat.UriEscaped)
            : Shown(endpoint.OriginalString);

    /// <summary>OpenTelemetry's variables hold durations as whole milliseconds.</summary>
    public static bool TryMilliseconds(ScalableMetricsOtlpOptions options, string key, string text, out TimeSpan value) =>
        TryMilliseconds(options, key, text, zeroIsNoLimit: false, out value);

    /// <summary>A timeout variable (<c>OTEL_EXPORTER_OTLP_TIMEOUT</c>, <c>OTEL_METRIC_EXPORT_TIMEOUT</c>
    /// and the like) in whole milliseconds, where 0 is no limit: the OpenTelemetry specification's
    /// "Timeout" type (configuration/common.md) has implementations read zero as no limit, or as "a
    /// very long time". It is read as the longest duration the exporter takes, one day.</summary>
    public static bool TryTimeoutMilliseconds(ScalableMetricsOtlpOptions options, string key, string text, out TimeSpan value) =>
        TryMilliseconds(options, key, text, zeroIsNoLimit: true, out value);

    private static bool TryMilliseconds(ScalableMetricsOtlpOptions options, string key, string text, bool zeroIsNoLimit, out TimeSpan value)
    {
        long least = zeroIsNoLimit ? 0 : 1;
        if (long.TryParse(text.Trim(), NumberStyles.None, CultureInfo.InvariantCulture, out long milliseconds) && milliseconds >= least && milliseconds <= (long)s_longest.TotalMilliseconds)
        {
            value = milliseconds == 0 ? s_longest : TimeSpan.FromMilliseconds(milliseconds);
            return true;
        }

        options.Problems.Add($"{key} '{text}' is not a whole number of milliseconds from {(zeroIsNoLimit ? "0 (no limit: one day)" : "1")} to one day.");
        value = default;
        return false;
    }

    /// <summary>A whole number of bytes, as the configuration binder reads an <see cref="int"/>; its range is the validator's to check.</summary>
    public static bool TryInt(ScalableMetricsOtlpOptions options, string key, string text, out int value)
    {
        if (int.TryParse(text.Trim(), NumberStyles.AllowLeadingSign, CultureInfo.InvariantCulture, out value))
        {
            return true;
        }

        options.Problems.Add($"{key} '{text}' is not a whole number.");
        return false;
    }

    /// <summary>The configuration section holds durations as the configuration binder reads a
    /// <see cref="TimeSpan"/>: <c>[d.]hh:mm:ss[.fff]</c>.</summary>
    public static bool TryTimeSpan(ScalableMetricsOtlpOptions options, string key, string text, out TimeSpan value)
    {
        if (TimeSpan.TryParse(text.Trim(), CultureInfo.InvariantCulture, out value) && value > TimeSpan.Zero && value <= s_longest)
        {
            return true;
        }

        options.Problems.Add($"{key} '{text}' is not a time span (hh:mm:ss) above zero and at most one day.");
        return false;
    }

    public static bool TryEnum<TEnum>(ScalableMetricsOtlpOptions options, string key, string text, out TEnum value)
        where TEnum : struct, Enum
    {
        if (Enum.TryParse(text.Trim(), ignoreCase: true, out value) && Enum.IsDefined(value))
        {
            return true;
        }

        options.Problems.Add($"{key} '{text}' is not one of {string.Join(", ", Enum.GetNames<TEnum>())}.");
        return false;
    }

    /// <summary>OpenTelemetry's variables name a choice in lower case (<c>grpc</c>, <c>gzip</c>): one of <paramref name="choices"/>' names, in any case.</summary>
    public static bool TryChoice<T>(ScalableMetricsOtlpOptions options, string key, string text, ReadOnlySpan<(string Name, T Value)> choices, out T value)
        where T : struct, Enum
    {
        string name = text.Trim().ToLowerInvariant();
        foreach ((string Name, T Value) choice in choices)
        {
            if (choice.Name == name)
            {
                value = choice.Value;
                return true;
            }
        }

        var names = new List<string>(choices.Length);
        foreach ((string Name, T Value) choice in choices)
        {
            names.Add(choice.Name);
        }

        options.Problems.Add($"{key} '{text}' is not supported: use {string.Join(", ", names[..^1])} or {names[^1]}.");
        value = default;
        return false;
    }

    /// <summary>The W3C-baggage-like list of OpenTelemetry's <c>..._HEADERS</c> variables:
    /// <c>name=value,name2=value2</c>, each name and value percent-decoded and trimmed.</summary>
    /// <remarks>Headers carry credentials (an API key, a bearer token), and a start that fails logs
    /// its message: a malformed entry is named by its position, and by its header name where one can
    /// be told, never by its text.</remarks>
    public static void AddHeaders(ScalableMetricsOtlpOptions options, string key, string text)
    {
        string[] entries = text.Split(',', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries);
        for (int i = 0; i < entries.Length; i++)
        {
            string entry = entries[i];
            int equals = entry.IndexOf('=', StringComparison.Ordinal);
            string name = equals > 0 ? Uri.UnescapeDataString(entry[..equals]).Trim() : string.Empty;
            if (equals < 0 || name.Length == 0 || !OtlpHeaders.IsName(name))
            {
                options.Problems.Add($"{key}: entry {i + 1} of {entries.Length}{HeaderNameOf(entry)} {EntryProblem(equals, name)} (its text is not repeated here: it may hold a credential).");
                continue;
            }

            options.Headers[name] = Uri.UnescapeDataString(entry[(equals + 1)..]).Trim();
        }
    }

    private static string EntryProblem(int equals, string name) =>
        equals < 0 ? "is not name=value: it has no '='"
        : name.Length == 0 ? "is not name=value: it has no name before its '='"
        : "is not name=value: the text before its '=' is not an HTTP header name";

    // The header an entry meant, where it can be told without repeating a value: the text before its
    // first '=' or ':' ("Authorization: Bearer ..." written as HTTP has it), when that text, percent-
    // decoded as AddHeaders decodes a name, is a header name. An entry with neither may be a bare
    // credential, and is not named; nor is one whose text is a name only before decoding: a value
    // given without its name ("Basic%20<token>==") has '%', a token character, where a space is meant.
    private static string HeaderNameOf(string entry)
    {
        int end = entry.AsSpan().IndexOfAny('=', ':');
        if (end <= 0)
        {
            return string.Empty;
        }

        string name = Uri.UnescapeDataString(entry[..end]).Trim();
        string colon = entry[end] == ':' ? ", written with ':' where '=' was meant" : string.Empty;
        return name.Length > 0 && OtlpHeaders.IsName(name) ? $" (header '{name}'{colon})" : string.Empty;
    }
}
