using ScalableMetrics.Exporter.Prometheus.Exposition;
using ScalableMetrics.Exporter.Prometheus.Scraping;

namespace ScalableMetrics.Exporter.Tests.Prometheus.Scraping;

/// <summary>The <c>Accept</c> and <c>Accept-Encoding</c> headers a scrape may send, and the format and coding each gets.</summary>
public sealed class ScrapeNegotiationTests
{
    [Theory]
    // Prometheus 2.42's scrape Accept header (scrape/scrape.go, acceptHeader).
    [InlineData("application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1", PrometheusExpositionFormat.OpenMetrics)]
    [InlineData("application/openmetrics-text; version=1.0.0", PrometheusExpositionFormat.OpenMetrics)]
    [InlineData("application/openmetrics-text", PrometheusExpositionFormat.OpenMetrics)]
    [InlineData("Application/OpenMetrics-Text; Version=1.0.0; charset=utf-8", PrometheusExpositionFormat.OpenMetrics)]
    [InlineData("text/plain;version=0.0.4;q=0.9,application/openmetrics-text;version=1.0.0;q=0.5", PrometheusExpositionFormat.Text)]
    [InlineData("text/plain;q=0.5,application/openmetrics-text;q=0.8", PrometheusExpositionFormat.OpenMetrics)]
    [InlineData("application/openmetrics-text;version=1.0.0;q=0,text/plain", PrometheusExpositionFormat.Text)]
    [InlineData("application/openmetrics-text;version=0.0.1", PrometheusExpositionFormat.Text)]
    [InlineData("application/openmetrics-text;version=2.0.0", PrometheusExpositionFormat.Text)]
    [InlineData("text/plain; version=0.0.4", PrometheusExpositionFormat.Text)]
    [InlineData("*/*", PrometheusExpositionFormat.Text)]
    [InlineData("application/json", PrometheusExpositionFormat.Text)]
    [InlineData("application/openmetrics-text;q=abc", PrometheusExpositionFormat.Text)]
    [InlineData(";;,,", PrometheusExpositionFormat.Text)]
    [InlineData("", PrometheusExpositionFormat.Text)]
    [InlineData(null, PrometheusExpositionFormat.Text)]
    public void TheAcceptHeaderPicksTheFormat(string? accept, PrometheusExpositionFormat expected)
    {
        Assert.Equal(expected, ScrapeNegotiation.Format(accept).Id);
    }

    // RFC 9110 §12.5.1: "Media ranges can be overridden by more specific media ranges or specific
    // media types. If more than one media range applies to a given type, the most specific reference
    // has precedence", and a qvalue of 0 "means 'not acceptable'" (§12.4.2); ScrapeNegotiation's own
    // remarks: "q=0 is 'not acceptable'". Each header refuses the text type it names and accepts the
    // other formats served (OpenMetrics, protobuf, or text 1.0.0) through its wildcard.
    [Theory]
    [InlineData("text/plain;q=0, */*", "text/plain")]
    [InlineData("text/plain;q=0,*/*;q=0.1", "text/plain")]
    [InlineData("text/*;q=0, */*", "text/plain")]
    [InlineData("text/plain;version=0.0.4;q=0, text/*", "text/plain; version=0.0.4")]
    public void AWildcardNeverAnswersTheTypeAMoreSpecificRangeRefuses(string accept, string refused)
    {
        (ExpositionFormat format, string contentType) = ScrapeNegotiation.Negotiate(accept);

        Assert.False(
            contentType.StartsWith(refused, StringComparison.OrdinalIgnoreCase),
            $"Accept: {accept} refuses {refused} (q=0), yet the scrape is answered {format} as '{contentType}'.");
    }

    // The wildcard answers the first of text 0.0.4, text 1.0.0, OpenMetrics and protobuf that no more specific range
    // refuses, wherever the refusal stands in the header; text 0.0.4 where every one is refused.
    [Theory]
    [InlineData("*/*, text/plain;q=0", "application/openmetrics-text; version=1.0.0")]
    [InlineData("text/plain;version=0.0.4;q=0, */*", "text/plain; version=1.0.0")]
    [InlineData("text/plain;q=0, application/openmetrics-text;q=0, */*", "application/vnd.google.protobuf")]
    [InlineData("text/*;q=0, application/*;q=0, */*", "text/plain; version=0.0.4")]
    [InlineData("text/plain;q=0, text/*", "text/plain; version=0.0.4")]
    [InlineData("text/*;q=0, text/*", "text/plain; version=0.0.4")]
    [InlineData("*/*;q=0, */*", "text/plain; version=0.0.4")]
    [InlineData("application/openmetrics-text;version=0.0.1;q=0, text/plain;q=0, */*", "application/openmetrics-text; version=1.0.0")]
    [InlineData("application/vnd.google.protobuf;q=0, text/plain;q=0, application/openmetrics-text;q=0, */*", "text/plain; version=0.0.4")]
    [InlineData("*/*;version=1.0.0", "text/plain; version=1.0.0")]
    public void AWildcardAnswersTheFirstFormatNoMoreSpecificRangeRefuses(string accept, string expected)
    {
        Assert.StartsWith(expected, ScrapeNegotiation.Negotiate(accept).ContentType, StringComparison.OrdinalIgnoreCase);
    }

    [Theory]
    [InlineData("gzip", true)]
    [InlineData("gzip, deflate, br", true)]
    [InlineData("GZIP;q=0.5", true)]
    [InlineData("*", true)]
    [InlineData("gzip;q=0", false)]
    [InlineData("gzip; q=0.0", false)]
    [InlineData("deflate, br", false)]
    [InlineData("identity", false)]
    [InlineData("", false)]
    [InlineData(null, false)]
    public void TheAcceptEncodingHeaderSaysWhetherGzipIsTaken(string? acceptEncoding, bool expected)
    {
        Assert.Equal(expected, ScrapeNegotiation.AcceptsGzip(acceptEncoding));
    }

    // RFC 9110 §12.5.3: "*" matches any available content coding not explicitly listed in the field.
    [Theory]
    [InlineData("gzip;q=0, *", false)]
    [InlineData("*, gzip;q=0", false)]
    [InlineData("*;q=0, gzip", true)]
    [InlineData("gzip, *;q=0", true)]
    [InlineData("deflate;q=0, *", true)]
    public void TheWildcardTakesGzipOnlyWhereGzipIsNotListed(string acceptEncoding, bool expected)
    {
        Assert.Equal(expected, ScrapeNegotiation.AcceptsGzip(acceptEncoding));
    }

    // RFC 9110 §8.4.1.3: "A recipient SHOULD consider "x-gzip" to be equivalent to "gzip"."
    [Theory]
    [InlineData("x-gzip", true)]
    [InlineData("X-GZIP;q=0.5", true)]
    [InlineData("x-gzip;q=0, *", false)]
    [InlineData("x-gzip;q=0, gzip", true)]
    public void XGzipIsGzip(string acceptEncoding, bool expected)
    {
        Assert.Equal(expected, ScrapeNegotiation.AcceptsGzip(acceptEncoding));
    }
}
