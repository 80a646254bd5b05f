using System.Text;
using ScalableMetrics.Exporter.Tests.Prometheus.Exposition;

namespace ScalableMetrics.Exporter.Tests;

/// <summary>
/// The check that no two samples of a scrape are one series as Prometheus stores it (same name,
/// same labels once sorted and with empty values dropped: it keeps the first and drops the rest),
/// made on the bytes production writes, in each format, through a parser of those bytes: text
/// 0.0.4 and OpenMetrics through <see cref="PrometheusText"/>, protobuf through <see cref="ProtoMessage"/>.
/// </summary>
internal static class ExposedSeries
{
    /// <summary>Fails where two samples (in protobuf, two <c>Metric</c> messages of a family name) of <paramref name="body"/> are one series.</summary>
    /// <param name="format">The body's format.</param>
    /// <param name="body">The body.</param>
    /// <param name="utf8Names">Whether the text formats may hold quoted UTF-8 names (a scrape that allowed them).</param>
    public static void AssertNoneRepeated(PrometheusExpositionFormat format, byte[] body, bool utf8Names = false)
    {
        switch (format)
        {
            case PrometheusExpositionFormat.Text:
                // The text parser fails on a repeated series itself, among its other checks.
                PrometheusText.Parse(Encoding.UTF8.GetString(body), utf8Names);
                break;
            case PrometheusExpositionFormat.OpenMetrics:
                AssertUnique(PrometheusText.ParseOpenMetrics(Encoding.UTF8.GetString(body), utf8Names).Select(static s => PrometheusText.SeriesKey(s.Name, s.Labels)));
                break;
            default:
                AssertUnique(ProtobufSeries(body));
                break;
        }
    }

    // MetricFamily { name = 1, metric = 4 }; Metric { label = 1 }; LabelPair { name = 1, value = 2 }, an empty value absent.
    private static IEnumerable<string> ProtobufSeries(byte[] body) =>
        from family in ProtoMessage.ParseDelimited(body)
        from metric in family.Messages(4)
        select PrometheusText.SeriesKey(
            family.String(1),
            metric.Messages(1).Select(static label => new KeyValuePair<string, string>(label.String(1), label.Has(2) ? label.String(2) : string.Empty)));

    private static void AssertUnique(IEnumerable<string> series)
    {
        var seen = new HashSet<string>(StringComparer.Ordinal);
        foreach (string key in series)
        {
            Assert.True(seen.Add(key), $"Two samples of one series as Prometheus stores it: {key}");
        }
    }
}
