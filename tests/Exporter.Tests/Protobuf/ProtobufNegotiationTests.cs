using ScalableMetrics.Exporter.Prometheus.Exposition;

namespace ScalableMetrics.Exporter.Tests.Protobuf;

/// <summary>The protobuf exposition is served only when the scraper asks for it above everything else it offers.</summary>
public class ProtobufNegotiationTests
{
    [Theory]
    // Prometheus 2.42 with --enable-feature=native-histograms (scrape/scrape.go, scrapeAcceptHeader with protobuf first).
    [InlineData("application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=delimited;q=0.7,text/plain;version=0.0.4;q=0.3,*/*;q=0.2", true)]
    [InlineData("application/vnd.google.protobuf; proto=io.prometheus.client.MetricFamily; encoding=delimited", true)]
    // Prometheus without the feature: OpenMetrics first.
    [InlineData("application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1", false)]
    [InlineData("application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=delimited;q=0.5,text/plain;q=0.9", false)]
    [InlineData("application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=text", false)]
    [InlineData("application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=delimited;q=0", false)]
    [InlineData("", false)]
    [InlineData(null, false)]
    public void ProtobufIsChosenOnlyWhenPreferred(string? accept, bool expected) =>
        Assert.Equal(expected, ProtobufNegotiation.PrefersProtobuf(accept));
}
