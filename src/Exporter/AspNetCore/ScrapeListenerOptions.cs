namespace ScalableMetrics.Exporter;

/// <summary>
/// Where the standalone scrape listener serves the Prometheus scrape: an HTTP endpoint of its own
/// (<see cref="System.Net.HttpListener"/>, no ASP.NET Core server), for hosts without Kestrel such
/// as a worker service. Set through <see cref="ScalableMetricsOptions.AddScrapeListener"/> or the
/// configuration section <c>ScalableMetrics:ScrapeListener</c>; read once, when the host starts.
/// </summary>
/// <remarks>
/// The listener serves <c>GET <see cref="Path"/></c> exactly as <c>MapPrometheusScrapingEndpoint</c>
/// does, through the same <see cref="PrometheusScraper"/>; any other path answers 404, any other
/// method 405. It is bound to the loopback interface unless <see cref="Host"/> says otherwise, as
/// OpenTelemetry's <c>OpenTelemetry.Exporter.Prometheus.HttpListener</c> and prometheus-net's
/// <c>MetricServer</c> offer it. Not thread-safe to change; set it before the host starts.
/// </remarks>
public sealed class ScrapeListenerOptions
{
    /// <summary>The port listened on when none is given: 9464, OpenTelemetry's default for its Prometheus HTTP listener.</summary>
    public const int DefaultPort = 9464;

    /// <summary>The path served when none is given: <c>/metrics</c>.</summary>
    public const string DefaultPath = "/metrics";

    /// <summary>The host listened on when none is given: <c>127.0.0.1</c>, the loopback interface only.</summary>
    public const string DefaultHost = "127.0.0.1";

    /// <summary>The TCP port, 1 to 65535.</summary>
    /// <remarks>Default: <see cref="DefaultPort"/>. Out of range, the host fails to start.</remarks>
    public int Port { get; set; } = DefaultPort;

    /// <summary>The path of the scrape, starting with <c>/</c>, matched case-insensitively; a trailing <c>/</c> is ignored.</summary>
    /// <remarks>Default: <see cref="DefaultPath"/>. Empty, or not starting with <c>/</c>, the host fails to start.</remarks>
    public string Path { get; set; } = DefaultPath;

    /// <summary>
    /// The host name or address of the <see cref="System.Net.HttpListener"/> prefix:
    /// <c>127.0.0.1</c>, <c>localhost</c>, an address of the machine, or <c>*</c> (or <c>+</c>)
    /// for every interface, which exposes the metrics to the network.
    /// </summary>
    /// <remarks>Default: <see cref="DefaultHost"/>. Empty, the host fails to start.</remarks>
    public string Host { get; set; } = DefaultHost;
}
