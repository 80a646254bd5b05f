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
/// as before content negotiation (client_golang answers so too, never 406).</para>
/// </remarks>
internal static class ScrapeNegotiation
{
    /// <summary>The format <paramref name="accept"/> (the <c>Accept</c> header's values joined by commas) asks for.</summary>
    public static ExpositionFormat Format(string? accept)
    {
        if (string.IsNullOrWhiteSpace(accept))
        {
            return ExpositionFormat.Text;
        }

        ExpositionFormat best = ExpositionFormat.Text;
        double bestQuality = 0;
        foreach (string range in accept.Split(',', StringSplitOptions.TrimEntries | StringSplitOptions.RemoveEmptyEntries))
        {
            string[] parts = range.Split(';', StringSplitOptions.TrimEntries);
            string? version = null;
            string? proto = null;
            string? encoding = null;
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
            }

            if (quality > bestQuality && FormatOf(parts[0], new MediaRangeParameters(version, proto, encoding)) is { } format)
            {
                best = format;
                bestQuality = quality;
            }
        }

        return best;
    }

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
