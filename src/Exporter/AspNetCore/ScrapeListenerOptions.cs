namespace ScalableMetrics.Exporter;

/// <summary>
/// Where the standalone scrape listener serves the Prometheus scrape: an HTTP endpoint of its own
/// (a Kestrel server of its own, apart from any the application runs), for hosts without an
/// ASP.NET Core server such as a worker service. Set through <see cref="ScalableMetricsOptions.AddScrapeListener"/> or the
/// configuration section <c>ScalableMetrics:ScrapeListener</c>; read once, when the host starts.
/// </summary>
/// <remarks>
/// The listener serves <c>GET <see cref="Path"/></c> (and <c>HEAD</c>) exactly as <c>MapScalableMetrics</c>
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

    /// <summary>The TCP port, 0 to 65535; 0 for a free port the system picks, which the listener's
    /// start-up log line names.</summary>
    /// <remarks>Default: <see cref="DefaultPort"/>. Out of range, the host fails to start.</remarks>
    public int Port { get; set; } = DefaultPort;

    /// <summary>The path of the scrape, starting with <c>/</c>, matched case-insensitively; a trailing <c>/</c> is ignored.</summary>
    /// <remarks>Default: <see cref="DefaultPath"/>. Empty, or not starting with <c>/</c>, the host fails to start.</remarks>
    public string Path { get; set; } = DefaultPath;

    /// <summary>
    /// The address the listener binds to: <c>127.0.0.1</c>, <c>localhost</c> (the IPv4 and IPv6
    /// loopback addresses), an address of the machine (<c>::1</c>, <c>10.0.0.5</c>), a name of the
    /// machine (each address it resolves to), or <c>*</c> (or <c>+</c>) for every interface, which
    /// exposes the metrics to the network.
    /// </summary>
    /// <remarks>
    /// <para>Default: <see cref="DefaultHost"/>. Empty, or with a scheme, port or path (<c>localhost:9464</c>), the host fails to start
    /// (an <c>OptionsValidationException</c>); a name that does not resolve, or an address that is not the machine's, fails it with an
    /// <see cref="InvalidOperationException"/> naming the address and <c>ScalableMetrics:ScrapeListener:Host</c>.</para>
    /// <para>The listener serves every request that reaches the addresses it is bound to, whatever
    /// its <c>Host</c> header says: bound to <c>127.0.0.1</c>, it serves a Prometheus target written
    /// <c>localhost:9464</c> as well as <c>127.0.0.1:9464</c>.</para>
    /// </remarks>
    public string Host { get; set; } = DefaultHost;

    /// <summary>
    /// The path of a web configuration file, as Prometheus' own exporters take one
    /// (prometheus/exporter-toolkit's <c>web-config.yml</c>, <c>--web.config.file</c>): TLS
    /// (<c>tls_server_config</c>: <c>cert_file</c>, <c>key_file</c> in PEM, <c>client_ca_file</c>,
    /// <c>client_auth_type</c>, <c>min_version</c> <c>TLS12</c> or <c>TLS13</c>) and basic
    /// authentication (<c>basic_auth_users</c>: a user name to a bcrypt hash). Relative paths in the
    /// file start at the file's folder.
    /// </summary>
    /// <remarks>
    /// <para>Default: <see langword="null"/>: the same keys are read from the configuration section
    /// <c>ScalableMetrics:ScrapeListener</c> (<c>ScalableMetrics:ScrapeListener:tls_server_config:cert_file</c>,
    /// <c>ScalableMetrics:ScrapeListener:basic_auth_users:prometheus</c>), and without them the
    /// listener serves plain HTTP to anyone. Every key of that section but these options' own is
    /// taken as web configuration and checked as the file's are. Giving both the file and the keys,
    /// an unknown or unsupported key, or a file that does not load, stops the host at start with a
    /// message naming the setting.</para>
    /// <para>The file, and the files it names, are read again at every TLS handshake and every
    /// request: a change (a renewed certificate, a new user) takes effect at once, and a change that
    /// does not load is logged and the configuration before it kept. Turning TLS on or off takes a
    /// restart. A request without valid credentials is answered 401 with
    /// <c>WWW-Authenticate: Basic</c>; an unknown user takes as long to refuse as a wrong password.</para>
    /// </remarks>
    public string? WebConfigFile { get; set; }
}
