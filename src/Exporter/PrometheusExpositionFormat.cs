namespace ScalableMetrics.Exporter;

/// <summary>The text format a scrape is written in; the scraper's <c>Accept</c> header picks it (see <see cref="PrometheusScraper"/>).</summary>
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
}
