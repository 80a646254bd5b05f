using ScalableMetrics.Exporter.Prometheus.Exposition;

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
/// which gets OpenMetrics with <c>escaping=underscores</c> (<see cref="Negotiate"/>).</para>
/// </remarks>
internal static class ScrapeNegotiation
{
    // The content types that name an escaping, by scheme (EscapingScheme's order), made once.
    private static readonly string[] s_text100 = ContentTypes("text/plain; version=1.0.0; charset=utf-8");
    private static readonly string[] s_openMetrics = ContentTypes(PrometheusScraper.OpenMetricsContentType);
    private static readonly string[] s_protobuf = ContentTypes(PrometheusScraper.ProtobufContentType);

    /// <summary>The format <paramref name="accept"/> (the <c>Accept</c> header's values joined by commas) asks for.</summary>
    public static ExpositionFormat Format(string? accept) => Negotiate(accept).Format;

    /// <summary>
    /// The format <paramref name="accept"/> asks for, and the content type to answer it with: the
    /// format's, naming the escaping applied (Prometheus' content-negotiation document: "for text
    /// formats version 1.0.0 and above, the escaping scheme parameter"; protobuf names it too, as
    /// client_golang does). Text 0.0.4 names none: it has no names but legacy ones.
    /// </summary>
    /// <remarks>
    /// The escaping applied is the one asked for, <c>underscores</c> where none (the escaping-schemes
    /// document's default), except that <c>allow-utf-8</c> gets <c>underscores</c>: this library's
    /// names are OpenTelemetry's translated to underscores before any scrape, as OpenTelemetry
    /// .NET's exporter answers under its default translation strategy. The other schemes leave
    /// such names as they are (prometheus/common's <c>EscapeMetricFamily</c>), so no scheme
    /// changes the body, and no two series that Prometheus would store as one are ever written.
    /// </remarks>
    public static (ExpositionFormat Format, string ContentType) Negotiate(string? accept)
    {
        (ExpositionFormat format, MediaRangeParameters parameters) = Choose(accept);
        int escaping = (int)(parameters.Escaping is null or EscapingScheme.AllowUtf8 ? EscapingScheme.Underscores : parameters.Escaping.Value);
        string contentType = format.Id switch
        {
            PrometheusExpositionFormat.OpenMetrics => s_openMetrics[escaping],
            PrometheusExpositionFormat.Protobuf => s_protobuf[escaping],
            _ when parameters.Version == "1.0.0" => s_text100[escaping],
            _ => format.ContentType,
        };
        return (format, contentType);
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
    public static string NameOf(EscapingScheme scheme) => scheme switch
    {
        EscapingScheme.AllowUtf8 => "allow-utf-8",
        EscapingScheme.Dots => "dots",
        EscapingScheme.Values => "values",
        _ => "underscores",
    };

    private static (ExpositionFormat Format, MediaRangeParameters Parameters) Choose(string? accept)
    {
        if (string.IsNullOrWhiteSpace(accept))
        {
            return (ExpositionFormat.Text, default);
        }

        ExpositionFormat best = ExpositionFormat.Text;
        MediaRangeParameters bestParameters = default;
        double bestQuality = 0;
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
            if (quality > bestQuality && FormatOf(parts[0], parameters) is { } format)
            {
                best = format;
                bestParameters = parameters;
                bestQuality = quality;
            }
        }

        return (best, bestParameters);
    }

    private static string[] ContentTypes(string contentType) =>
        [.. Enum.GetValues<EscapingScheme>().Select(scheme => contentType + "; escaping=" + NameOf(scheme))];

    /// <summary>Whether <paramref name="acceptEncoding"/> (the <c>Accept-Encoding</c> header) takes gzip: <c>gzip</c> or <c>*</c> without <c>q=0</c>.</summary>
    public static bool AcceptsGzip(string? acceptEncoding)
    {
        if (string.IsNullOrWhiteSpace(acceptEncoding))
        {
            return false;
        }

        foreach (string coding in acceptEncoding.Split(',', StringSplitOptions.TrimEntries | StringSplitOptions.RemoveEmptyEntries))
        {
            string[] parts = coding.Split(';', StringSplitOptions.TrimEntries);
            if (!parts[0].Equals("gzip", StringComparison.OrdinalIgnoreCase) && parts[0] != "*")
            {
                continue;
            }

            bool refused = parts.Skip(1).Any(static p => p.Replace(" ", string.Empty, StringComparison.Ordinal) is var q
                && q.StartsWith("q=", StringComparison.OrdinalIgnoreCase)
                && double.TryParse(q.AsSpan(2), System.Globalization.NumberStyles.Float, System.Globalization.CultureInfo.InvariantCulture, out double value)
                && value <= 0);
            if (!refused)
            {
                return true;
            }
        }

        return false;
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
