namespace ScalableMetrics.Exporter.Prometheus.Exposition;

/// <summary>
/// Whether a scraper's <c>Accept</c> header asks for the protobuf exposition
/// (<see cref="ProtobufExpositionWriter.ContentType"/>) above every other type it offers: Prometheus
/// started with <c>--enable-feature=native-histograms</c> puts it first.
/// </summary>
internal static class ProtobufNegotiation
{
    /// <summary>True when <paramref name="accept"/> offers <c>application/vnd.google.protobuf</c> with
    /// <c>proto=io.prometheus.client.MetricFamily</c> and <c>encoding=delimited</c>, at a quality above
    /// zero and not below any other media range it offers.</summary>
    public static bool PrefersProtobuf(string? accept)
    {
        if (string.IsNullOrEmpty(accept))
        {
            return false;
        }

        double protobufQuality = 0;
        double otherQuality = 0;
        foreach (string range in accept.Split(',', StringSplitOptions.TrimEntries | StringSplitOptions.RemoveEmptyEntries))
        {
            string[] parts = range.Split(';', StringSplitOptions.TrimEntries | StringSplitOptions.RemoveEmptyEntries);
            double quality = 1;
            bool proto = false;
            bool delimited = false;
            foreach (string parameter in parts.Skip(1))
            {
                if (parameter.StartsWith("q=", StringComparison.OrdinalIgnoreCase))
                {
                    quality = double.TryParse(parameter.AsSpan(2), System.Globalization.NumberStyles.Float, System.Globalization.CultureInfo.InvariantCulture, out double q) ? q : 0;
                }

                proto |= parameter.Equals("proto=io.prometheus.client.MetricFamily", StringComparison.Ordinal);
                delimited |= parameter.Equals("encoding=delimited", StringComparison.Ordinal);
            }

            if (parts.Length > 0 && parts[0].Equals("application/vnd.google.protobuf", StringComparison.OrdinalIgnoreCase) && proto && delimited)
            {
                protobufQuality = Math.Max(protobufQuality, quality);
            }
            else
            {
                otherQuality = Math.Max(otherQuality, quality);
            }
        }

        return protobufQuality > 0 && protobufQuality >= otherQuality;
    }
}
