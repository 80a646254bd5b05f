namespace ScalableMetrics.Exporter;

/// <summary>The format a scrape is written in; the scraper's <c>Accept</c> header picks it (see <see cref="PrometheusScraper"/>).</summary>
public enum PrometheusExpositionFormat
{
    /// <summary>The Prometheus text exposition format 0.0.4 (<see cref="PrometheusScraper.ContentType"/>): what any scraper reads.</summary>
    Text = 0,

    /// <summary>
    /// OpenMetrics 1.0 text (<see cref="PrometheusScraper.OpenMetricsContentType"/>): <c># TYPE</c>,
    /// <c># UNIT</c>, <c># HELP</c>, counter families named without <c>_total</c>, <c>_created</c>
    /// samples, OpenMetrics escaping and numbers, and <c># EOF</c> at the end.
    /// </summary>
    OpenMetrics = 1,

    /// <summary>
    /// Prometheus' protobuf exposition (<see cref="PrometheusScraper.ProtobufContentType"/>): length-delimited
    /// <c>io.prometheus.client.MetricFamily</c> messages of prometheus/client_model's <c>metrics.proto</c>,
    /// the only format in which Prometheus takes native histograms (<see cref="PartitionedExponentialHistogram"/>);
    /// Prometheus asks for it first when started with <c>--enable-feature=native-histograms</c>.
    /// </summary>
    Protobuf = 2,
}
