using ScalableMetrics.Exporter.Prometheus.Exposition;
using ScalableMetrics.Naming;

namespace ScalableMetrics.Exporter.Prometheus.Scraping;

/// <summary>
/// What a scrape request asks for: the format from its <c>Accept</c> header and whether its
/// <c>Accept-Encoding</c> takes gzip. Thread-safe (no state).
/// </summary>
/// <remarks>
/// <para>The media range of highest quality that a format answers (<see cref="ExpositionFormat.Answers"/>)
/// wins, the first of equal quality; <c>q=0</c> is "not acceptable". Prometheus
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

    // The format chosen, its media range's parameters, and the escaping named by the range of highest quality that names one.
    private static (ExpositionFormat Format, MediaRangeParameters Parameters, EscapingScheme? HeaderEscaping) Choose(string? accept)
    {
        if (string.IsNullOrWhiteSpace(accept))
        {
            return (ExpositionFormat.Text, default, null);
        }

        ExpositionFormat best = ExpositionFormat.Text;
        MediaRangeParameters bestParameters = default;
        double bestQuality = 0;
        EscapingScheme? headerEscaping = null;
        double headerEscapingQuality = -1;
        foreach (string range in accept.Split(',', StringSplitOptions.TrimEntries | StringSplitOptions.RemoveEmptyEntries))
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

            var parameters = new MediaRangeParameters(version, proto, encoding, escaping);
            if (escaping is not null && quality > 0 && quality > headerEscapingQuality)
            {
                headerEscaping = escaping;
                headerEscapingQuality = quality;
            }

            if (quality > bestQuality && FormatOf(parts[0], parameters) is { } format)
            {
                best = format;
                bestParameters = parameters;
                bestQuality = quality;
            }
        }

        return (best, bestParameters, headerEscaping);
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
