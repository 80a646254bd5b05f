using System.Buffers;
using ScalableMetrics.Exporter.Prometheus.Exposition;
using ScalableMetrics.Naming;

namespace ScalableMetrics.Exporter.Prometheus.Scraping;

/// <summary>
/// What a scrape request asks for: the format from its <c>Accept</c> header and whether its
/// <c>Accept-Encoding</c> takes gzip. Thread-safe (no state).
/// </summary>
/// <remarks>
/// <para>The media range of highest quality that a format answers (<see cref="ExpositionFormat.Answers"/>)
/// wins, the first of equal quality; <c>q=0</c> is "not acceptable". A wildcard (<c>*/*</c>, <c>text/*</c>) answers
/// text 0.0.4, or, where a more specific range refuses that with <c>q=0</c> (RFC 9110 §12.5.1: the most specific
/// range has precedence), the first of text 1.0.0, OpenMetrics and protobuf (<c>*/*</c> only) that none refuses:
/// <c>text/plain;q=0, */*</c> gets OpenMetrics. Prometheus
/// 2.42 sends <c>application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1</c>,
/// which gets OpenMetrics. The protobuf exposition is served for
/// <c>application/vnd.google.protobuf</c> with <c>proto=io.prometheus.client.MetricFamily</c> and
/// <c>encoding=delimited</c>: Prometheus 2.42 started with <c>--enable-feature=native-histograms</c>
/// sends <c>application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=delimited;q=0.7,text/plain;version=0.0.4;q=0.3,*/*;q=0.2</c>,
/// which gets protobuf. A missing header, or one that names nothing served, gets text 0.0.4,
/// as before content negotiation (client_golang answers so too, never 406). Prometheus 3 sends
/// <c>application/openmetrics-text;version=1.0.0;escaping=allow-utf-8;q=0.5,application/openmetrics-text;version=0.0.1;q=0.4,text/plain;version=1.0.0;escaping=allow-utf-8;q=0.3,text/plain;version=0.0.4;q=0.2,*/*;q=0.1</c>,
/// which gets OpenMetrics with <c>escaping=underscores</c> under the default name translation, and with
/// <c>escaping=allow-utf-8</c> and OpenTelemetry's names under a UTF-8 one (<see cref="Negotiate(string?, PrometheusNameTranslation)"/>).</para>
/// </remarks>
internal static class ScrapeNegotiation
{
    // The content types that name an escaping, by scheme (EscapingScheme's order), made once.
    private static readonly string[] s_text100 = ContentTypes("text/plain; version=1.0.0; charset=utf-8");
    private static readonly string[] s_openMetrics = ContentTypes(PrometheusScraper.OpenMetricsContentType);
    private static readonly string[] s_protobuf = ContentTypes(PrometheusScraper.ProtobufContentType);

    /// <summary>The format <paramref name="accept"/> (the <c>Accept</c> header's values joined by commas) asks for.</summary>
    public static ExpositionFormat Format(string? accept) => Negotiate(accept).Format;

    /// <summary>The format <paramref name="accept"/> asks for and the content type to answer it with, under the default name translation
    /// (<see cref="Negotiate(string?, PrometheusNameTranslation)"/>).</summary>
    public static (ExpositionFormat Format, string ContentType) Negotiate(string? accept)
    {
        (ExpositionFormat format, _, string contentType) = Negotiate(accept, PrometheusNameTranslation.UnderscoreEscapingWithSuffixes);
        return (format, contentType);
    }

    /// <summary>
    /// The format <paramref name="accept"/> asks for, the escaping of the names to write it with,
    /// and the content type to answer it with: the format's, naming the escaping applied
    /// (Prometheus' content-negotiation document: "for text formats version 1.0.0 and above, the
    /// escaping scheme parameter"; protobuf names it too, as client_golang does). Text 0.0.4 names
    /// none: it has no names but legacy ones, and gets the default translation's, as under <c>underscores</c>.
    /// </summary>
    /// <remarks>
    /// <para>The escaping applied is the one asked for, <c>underscores</c> where none (the escaping-schemes
    /// document's default).</para>
    /// <para>Under the default <paramref name="translation"/> (<see cref="PrometheusNameTranslation.UnderscoreEscapingWithSuffixes"/>)
    /// the names are legacy-valid before any scrape, which every scheme leaves as they are
    /// (prometheus/common's <c>EscapeMetricFamily</c>): the body is the same for every scheme, written
    /// as <see cref="EscapingScheme.Underscores"/>, and <c>allow-utf-8</c> is answered <c>underscores</c>,
    /// as OpenTelemetry .NET's exporter answers under that strategy. Under a UTF-8 translation, every
    /// scheme but <c>underscores</c> writes names of its own (<see cref="ExportedFamily.In"/>).</para>
    /// </remarks>
    /// <param name="accept">The <c>Accept</c> header's values joined by commas, or null.</param>
    /// <param name="translation">The scraper's name translation.</param>
    public static (ExpositionFormat Format, EscapingScheme Escaping, string ContentType) Negotiate(string? accept, PrometheusNameTranslation translation)
    {
        (ExpositionFormat format, MediaRangeParameters parameters, EscapingScheme? headerEscaping) = Choose(accept);

        // Prometheus names an escaping on its text 1.0.0 and OpenMetrics 1.0.0 ranges only (the content-negotiation
        // document); its protobuf range takes the scheme the header names elsewhere, as client_java's fromAcceptHeader reads it.
        EscapingScheme asked = parameters.Escaping
            ?? (format.Id == PrometheusExpositionFormat.Protobuf ? headerEscaping : null)
            ?? EscapingScheme.Underscores;
        bool legacyText = format.Id == PrometheusExpositionFormat.Text && parameters.Version != "1.0.0";
        EscapingScheme applied = legacyText ? EscapingScheme.Underscores
            : translation == PrometheusNameTranslation.UnderscoreEscapingWithSuffixes ? (asked == EscapingScheme.AllowUtf8 ? EscapingScheme.Underscores : asked)
            : asked;

        // The names written: under the default translation, the same whatever the scheme.
        EscapingScheme written = translation == PrometheusNameTranslation.UnderscoreEscapingWithSuffixes ? EscapingScheme.Underscores : applied;
        string contentType = format.Id switch
        {
            PrometheusExpositionFormat.OpenMetrics => s_openMetrics[(int)applied],
            PrometheusExpositionFormat.Protobuf => s_protobuf[(int)applied],
            _ when !legacyText => s_text100[(int)applied],
            _ => format.ContentType,
        };
        return (format, written, contentType);
    }

    /// <summary>The scheme an <c>escaping</c> parameter names, or null for a value that is none of them (the default then applies).</summary>
    /// <remarks>Both spellings of the UTF-8 scheme are taken: <c>allow-utf-8</c> (the escaping-schemes
    /// document, prometheus/common) and <c>allow-utf8</c> (the content-negotiation document's examples).</remarks>
    public static EscapingScheme? ParseEscaping(string value) => value.ToLowerInvariant() switch
    {
        "allow-utf-8" or "allow-utf8" => EscapingScheme.AllowUtf8,
        "underscores" => EscapingScheme.Underscores,
        "dots" => EscapingScheme.Dots,
        "values" => EscapingScheme.Values,
        _ => null,
    };

    /// <summary>The scheme's name as the <c>escaping</c> parameter writes it.</summary>
    public static string NameOf(EscapingScheme scheme) => EscapingNames.Of(scheme);

    // What a wildcard range (*/*, text/*) may answer, in the order it answers them: text 0.0.4, text 1.0.0,
    // OpenMetrics 1.0.0, protobuf; each as a media type and the parameters that pick it.
    private static readonly (ExpositionFormat Format, string MediaType, MediaRangeParameters Parameters)[] s_wildcardAnswers =
    [
        (ExpositionFormat.Text, "text/plain", new MediaRangeParameters("0.0.4", null, null)),
        (ExpositionFormat.Text, "text/plain", new MediaRangeParameters("1.0.0", null, null)),
        (ExpositionFormat.OpenMetrics, "application/openmetrics-text", new MediaRangeParameters("1.0.0", null, null)),
        (ExpositionFormat.Protobuf, "application/vnd.google.protobuf", new MediaRangeParameters(null, "io.prometheus.client.MetricFamily", "delimited")),
    ];

    // One media range of an Accept header: its type (text/plain, */*), the parameters that pick a format, its quality.
    private readonly record struct MediaRange(string MediaType, MediaRangeParameters Parameters, double Quality);

    // The format chosen, its media range's parameters, and the escaping named by the range of highest quality that names one.
    private static (ExpositionFormat Format, MediaRangeParameters Parameters, EscapingScheme? HeaderEscaping) Choose(string? accept)
    {
        if (string.IsNullOrWhiteSpace(accept))
        {
            return (ExpositionFormat.Text, default, null);
        }

        string[] values = accept.Split(',', StringSplitOptions.TrimEntries | StringSplitOptions.RemoveEmptyEntries);

        // Rented, as every scrape negotiates: the ranges are read twice (the refusals first).
        MediaRange[] rented = ArrayPool<MediaRange>.Shared.Rent(values.Length);
        try
        {
            Span<MediaRange> ranges = rented.AsSpan(0, values.Length);
            for (int r = 0; r < values.Length; r++)
            {
                ranges[r] = Parse(values[r]);
            }

            return Choose(ranges);
        }
        finally
        {
            ArrayPool<MediaRange>.Shared.Return(rented, clearArray: true);
        }
    }

    // Choose, over the header's ranges.
    private static (ExpositionFormat Format, MediaRangeParameters Parameters, EscapingScheme? HeaderEscaping) Choose(ReadOnlySpan<MediaRange> ranges)
    {

        // RFC 9110 §12.5.1: the most specific range that applies to a type has precedence, and q=0 is "not acceptable"
        // (§12.4.2). Per thing a wildcard may answer, the specificity of the most specific range that refuses it
        // (-1: none), so that a wildcard answers only what no range more specific than itself refuses.
        Span<int> refusedAt = stackalloc int[s_wildcardAnswers.Length];
        refusedAt.Fill(-1);
        foreach (MediaRange range in ranges)
        {
            if (range.Quality > 0)
            {
                continue;
            }

            for (int i = 0; i < s_wildcardAnswers.Length; i++)
            {
                if (Refuses(range, s_wildcardAnswers[i].MediaType, s_wildcardAnswers[i].Parameters) is int specificity && specificity > refusedAt[i])
                {
                    refusedAt[i] = specificity;
                }
            }
        }

        ExpositionFormat best = ExpositionFormat.Text;
        MediaRangeParameters bestParameters = default;
        double bestQuality = 0;
        EscapingScheme? headerEscaping = null;
        double headerEscapingQuality = -1;
        foreach (MediaRange range in ranges)
        {
            MediaRangeParameters parameters = range.Parameters;
            if (parameters.Escaping is not null && range.Quality > 0 && range.Quality > headerEscapingQuality)
            {
                headerEscaping = parameters.Escaping;
                headerEscapingQuality = range.Quality;
            }

            if (range.Quality <= bestQuality)
            {
                continue;
            }

            ExpositionFormat? format;
            if (WildcardSpecificity(range.MediaType) is int wildcard)
            {
                (format, parameters) = Resolve(range, wildcard, refusedAt);
            }
            else
            {
                format = FormatOf(range.MediaType, parameters);
            }

            if (format is not null)
            {
                best = format;
                bestParameters = parameters;
                bestQuality = range.Quality;
            }
        }

        return (best, bestParameters, headerEscaping);
    }

    // A media range of the header: its type, its parameters that pick a format (and its escaping), its quality
    // (1 where none; 0 where not a number, which is "not acceptable").
    private static MediaRange Parse(string range)
    {
        string[] parts = range.Split(';', StringSplitOptions.TrimEntries);
        string? version = null;
        string? proto = null;
        string? encoding = null;
        EscapingScheme? escaping = null;
        double quality = 1;
        for (int i = 1; i < parts.Length; i++)
        {
            int equals = parts[i].IndexOf('=', StringComparison.Ordinal);
            if (equals <= 0)
            {
                continue;
            }

            string name = parts[i][..equals].Trim();
            string value = parts[i][(equals + 1)..].Trim().Trim('"');
            if (name.Equals("q", StringComparison.OrdinalIgnoreCase))
            {
                quality = double.TryParse(value, System.Globalization.NumberStyles.Float, System.Globalization.CultureInfo.InvariantCulture, out double q) ? Math.Clamp(q, 0, 1) : 0;
            }
            else if (name.Equals("version", StringComparison.OrdinalIgnoreCase))
            {
                version = value;
            }
            else if (name.Equals("proto", StringComparison.OrdinalIgnoreCase))
            {
                proto = value;
            }
            else if (name.Equals("encoding", StringComparison.OrdinalIgnoreCase))
            {
                encoding = value;
            }
            else if (name.Equals("escaping", StringComparison.OrdinalIgnoreCase))
            {
                escaping = ParseEscaping(value);
            }
        }

        return new MediaRange(parts[0], new MediaRangeParameters(version, proto, encoding, escaping), quality);
    }

    // 0 for */*, 1 for text/*: the wildcards a format answers (ExpositionFormat.Text's); null for any other range.
    private static int? WildcardSpecificity(string mediaType) =>
        mediaType == "*/*" ? 0
        : mediaType.Equals("text/*", StringComparison.OrdinalIgnoreCase) ? 1
        : null;

    // How specific range is where it applies to mediaType with parameters (1: type/*, 2: type/subtype, whatever
    // parameters it names that pick a format equal to theirs), or null where it does not apply or is */*,
    // which is never more specific than a wildcard. The escaping a range names picks no format and is not compared.
    private static int? Refuses(MediaRange range, string mediaType, MediaRangeParameters parameters)
    {
        string type = range.MediaType;
        if (type == "*/*")
        {
            return null;
        }

        if (type.EndsWith("/*", StringComparison.Ordinal))
        {
            return mediaType.StartsWith(type.AsSpan(0, type.Length - 1), StringComparison.OrdinalIgnoreCase) ? 1 : null;
        }

        return type.Equals(mediaType, StringComparison.OrdinalIgnoreCase)
            && (range.Parameters.Version is null || range.Parameters.Version == parameters.Version)
            && (range.Parameters.Proto is null || range.Parameters.Proto == parameters.Proto)
            && (range.Parameters.Encoding is null || range.Parameters.Encoding == parameters.Encoding)
            ? 2
            : null;
    }

    // What the wildcard range of the specificity given answers: the first of s_wildcardAnswers it covers (text/*: text
    // only) that no more specific range refuses, text of the version the range names (0.0.4 where none) before the
    // other; none where every one is refused, so that a header refusing all of them gets text 0.0.4 as one naming
    // nothing served does. The range's escaping is kept.
    private static (ExpositionFormat? Format, MediaRangeParameters Parameters) Resolve(MediaRange range, int specificity, ReadOnlySpan<int> refusedAt)
    {
        // Text 1.0.0 first where the range names it, as before: */*;version=1.0.0 is answered text 1.0.0.
        bool named100 = range.Parameters.Version == "1.0.0";
        for (int n = 0; n < s_wildcardAnswers.Length; n++)
        {
            int i = named100 && n < 2 ? 1 - n : n;
            (ExpositionFormat format, _, MediaRangeParameters parameters) = s_wildcardAnswers[i];
            if (specificity == 1 && format != ExpositionFormat.Text)
            {
                break;
            }

            if (refusedAt[i] <= specificity)
            {
                return (format, parameters with { Escaping = range.Parameters.Escaping });
            }
        }

        return (null, default);
    }

    private static string[] ContentTypes(string contentType) =>
        [.. Enum.GetValues<EscapingScheme>().Select(scheme => contentType + "; escaping=" + NameOf(scheme))];

    /// <summary>
    /// Whether <paramref name="acceptEncoding"/> (the <c>Accept-Encoding</c> header) takes gzip: <c>gzip</c> (or its
    /// alias <c>x-gzip</c>) without <c>q=0</c>, or, where neither is listed, <c>*</c> without <c>q=0</c>.
    /// </summary>
    public static bool AcceptsGzip(string? acceptEncoding)
    {
        if (string.IsNullOrWhiteSpace(acceptEncoding))
        {
            return false;
        }

        // RFC 9110 §12.5.3: "*" matches only codings not listed in the field, so a listed gzip
        // (even gzip;q=0, a refusal) decides alone, wherever it stands.
        bool? gzip = null;
        bool? wildcard = null;
        foreach (string coding in acceptEncoding.Split(',', StringSplitOptions.TrimEntries | StringSplitOptions.RemoveEmptyEntries))
        {
            string[] parts = coding.Split(';', StringSplitOptions.TrimEntries);
            // RFC 9110 §8.4.1.3: x-gzip is gzip.
            bool isGzip = parts[0].Equals("gzip", StringComparison.OrdinalIgnoreCase) || parts[0].Equals("x-gzip", StringComparison.OrdinalIgnoreCase);
            if (!isGzip && parts[0] != "*")
            {
                continue;
            }

            bool refused = parts.Skip(1).Any(static p => p.Replace(" ", string.Empty, StringComparison.Ordinal) is var q
                && q.StartsWith("q=", StringComparison.OrdinalIgnoreCase)
                && double.TryParse(q.AsSpan(2), System.Globalization.NumberStyles.Float, System.Globalization.CultureInfo.InvariantCulture, out double value)
                && value <= 0);
            if (isGzip)
            {
                gzip = gzip is true || !refused;
            }
            else
            {
                wildcard = wildcard is true || !refused;
            }
        }

        return gzip ?? wildcard ?? false;
    }

    private static ExpositionFormat? FormatOf(string mediaType, MediaRangeParameters parameters)
    {
        foreach (ExpositionFormat format in ExpositionFormat.All)
        {
            if (format.Answers(mediaType, parameters))
            {
                return format;
            }
        }

        return null;
    }
}
