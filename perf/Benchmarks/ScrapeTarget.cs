namespace ScalableMetrics.Benchmarks;

/// <summary>One way to scrape one of the <see cref="HttpScrapeServices"/>: which endpoint, which format, compressed or not.</summary>
/// <param name="Name">How the results name it, e.g. <c>ours text gzip</c>.</param>
/// <param name="Endpoint">The scrape endpoint's address.</param>
/// <param name="Accept">The <c>Accept</c> header, as a Prometheus server sends it for the format.</param>
/// <param name="Gzip">Whether the request says <c>Accept-Encoding: gzip</c>.</param>
/// <param name="ContentType">What the answer's <c>Content-Type</c> must start with.</param>
internal sealed record ScrapeTarget(string Name, Uri Endpoint, string Accept, bool Gzip, string ContentType)
{
    /// <summary>The text format 0.0.4, as Prometheus asks for it when it may have nothing better.</summary>
    public const string TextAccept = "text/plain;version=0.0.4;q=0.5,*/*;q=0.1";

    /// <summary>OpenMetrics 1.0 first, as Prometheus asks by default.</summary>
    public const string OpenMetricsAccept = "application/openmetrics-text;version=1.0.0;q=0.5,text/plain;version=0.0.4;q=0.4,*/*;q=0.1";

    /// <summary>The protobuf exposition first, as Prometheus asks with native histograms on.</summary>
    public const string ProtobufAccept = "application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=delimited;q=0.5,text/plain;version=0.0.4;q=0.4,*/*;q=0.1";

    /// <summary>A new request for this target; <see cref="HttpClient"/> takes a new one per send.</summary>
    public HttpRequestMessage NewRequest()
    {
        var request = new HttpRequestMessage(HttpMethod.Get, Endpoint);
        request.Headers.TryAddWithoutValidation("Accept", Accept);
        if (Gzip)
        {
            request.Headers.TryAddWithoutValidation("Accept-Encoding", "gzip");
        }

        return request;
    }
}
