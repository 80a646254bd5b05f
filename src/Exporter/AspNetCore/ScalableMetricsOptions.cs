using ScalableMetrics.Exporter.Hosting;

namespace ScalableMetrics.Exporter;

/// <summary>
/// Settings of the <see cref="MetricRegistry"/>, its Prometheus scrape and, with the
/// ScalableMetrics.OpenTelemetry package's <c>UseOpenTelemetry()</c>, its <c>MeterBridge</c> and
/// OpenTelemetry <c>MeterProvider</c>, that <c>AddScalableMetrics</c> registers; read once, when
/// they are first resolved.
/// </summary>
public sealed class ScalableMetricsOptions
{
    /// <summary>The default of <see cref="MeterName"/>: <c>MeterBridge.DefaultMeterName</c>, which lives in the
    /// OpenTelemetry package (a test holds them equal).</summary>
    internal const string DefaultMeterName = "ScalableMetrics";

    private readonly List<IScalableMetricsFeature> _features = [];

    /// <summary>The name of the meter the registry's instruments are published on (by the
    /// OpenTelemetry package's <c>MeterBridge</c>); it becomes the <c>otel_scope_name</c> label of
    /// every Prometheus sample of the registry.</summary>
    /// <remarks>Default: <c>ScalableMetrics</c> (<c>MeterBridge.DefaultMeterName</c>). Must not be empty.</remarks>
    public string MeterName { get; set; } = DefaultMeterName;

    /// <summary>The default of <see cref="ScrapeTimeout"/>: 10 seconds, Prometheus' default <c>scrape_timeout</c>.</summary>
    public static readonly TimeSpan DefaultScrapeTimeout = TimeSpan.FromSeconds(10);

    /// <summary>How long a scrape waits for its collection when the scraper sends no
    /// <c>X-Prometheus-Scrape-Timeout-Seconds</c> header (Prometheus sends its <c>scrape_timeout</c>
    /// there, and that is used instead). A scrape still waiting past it is answered 503 and logged;
    /// the collection runs to its end and serves the scrapes that arrive before it ends.</summary>
    /// <remarks>Default: <see cref="DefaultScrapeTimeout"/> (10 s). Must be positive and at most one day.</remarks>
    public TimeSpan ScrapeTimeout { get; set; } = DefaultScrapeTimeout;

    /// <summary>
    /// Whether every scrape and every OTLP export also carry a few metrics about the library itself, named
    /// <c>scalablemetrics_*</c> as client libraries name theirs: the last collection's duration per
    /// format (<c>scalablemetrics_scrape_duration_seconds</c>), the series per instrument and its limit
    /// (<c>scalablemetrics_series</c>, <c>scalablemetrics_series_limit</c>), the instruments past their
    /// limit (<c>scalablemetrics_instruments_overflowing</c>), and what the <c>AddMeter</c> listener
    /// dropped or refused (<c>scalablemetrics_dropped_measurements_total</c>,
    /// <c>scalablemetrics_refused_instruments_total</c>).
    /// </summary>
    /// <remarks>Default: <see langword="true"/>. Configuration key <c>ScalableMetrics:ExportSelfMetrics</c>.
    /// They are observable instruments of a registry the library makes for itself, under
    /// <see cref="MeterName"/>; OTLP names them <c>scalablemetrics.series</c> and so on.
    /// The names are kept for these families either way: no instrument may export under one.</remarks>
    public bool ExportSelfMetrics { get; set; } = true;

    /// <summary>
    /// Whether the registry's instruments are published as <c>System.Diagnostics.Metrics</c> instruments of the meter
    /// <see cref="MeterName"/>, so that every <c>MeterListener</c> sees them: <c>dotnet-counters</c>, dotnet-monitor,
    /// an <c>EventListener</c>. Counters, up-down counters, gauges and observable instruments are observable
    /// instruments read from the registry when the listener collects; histograms are histograms that receive,
    /// once a second and only while a listener has them enabled, the values recorded since, each as its bucket's
    /// representative value. Nothing is added to the registry's write path either way.
    /// </summary>
    /// <remarks>Default: <see langword="true"/>. Configuration key <c>ScalableMetrics:PublishToMeterListeners</c>.
    /// With the OpenTelemetry package's <c>UseOpenTelemetry()</c>, its <c>MeterBridge</c> publishes the registry
    /// on that meter instead (without histograms), and this setting has no effect. A listener's reads of the meter
    /// are no collections (they count toward no idle expiry and take no removed series' last value from the
    /// exports), except, with the bridge, where an OpenTelemetry <c>MeterProvider</c> reads it: the bridge's reads
    /// are then collections, a tool's too. See docs/listening.md.</remarks>
    public bool PublishToMeterListeners { get; set; } = true;

    /// <summary>Whether an OpenMetrics scrape writes a <c>_created</c> sample after each series of a
    /// counter, histogram or summary (<see cref="PrometheusScraper.EnableOpenMetricsTextCreatedSamples"/>),
    /// as client_golang's <c>promhttp.HandlerOpts.EnableOpenMetricsTextCreatedSamples</c> of the same name does.</summary>
    /// <remarks>Default: <see langword="false"/>: Prometheus stores each <c>_created</c> line as a
    /// series of its own unless its <c>created-timestamp-zero-ingestion</c> feature is on. The
    /// protobuf exposition carries the start as <c>created_timestamp</c> whatever this says.
    /// Configuration key <c>ScalableMetrics:EnableOpenMetricsTextCreatedSamples</c>.</remarks>
    public bool EnableOpenMetricsTextCreatedSamples { get; set; }

    /// <summary>
    /// How instrument names and tag keys become Prometheus names where a scraper allows UTF-8 names
    /// (<see cref="PrometheusScraper.NameTranslation"/>), under the names of OpenTelemetry's
    /// <c>translation_strategy</c>: <see cref="PrometheusNameTranslation.UnderscoreEscapingWithSuffixes"/>
    /// (<c>http_server_request_duration_seconds</c> for every scraper),
    /// <see cref="PrometheusNameTranslation.NoUTF8EscapingWithSuffixes"/> (<c>http.server.request.duration_seconds</c>
    /// for Prometheus 3) or <see cref="PrometheusNameTranslation.NoTranslation"/> (<c>http.server.request.duration</c>).
    /// </summary>
    /// <remarks>Default: <see cref="PrometheusNameTranslation.UnderscoreEscapingWithSuffixes"/>, the names every
    /// scrape has always had. A scraper that allows no UTF-8 names gets those under any translation. A UTF-8 one
    /// makes the registry refuse an instrument whose names would meet another's under it (see docs/prometheus.md).
    /// Configuration key <c>ScalableMetrics:NameTranslation</c>.</remarks>
    public PrometheusNameTranslation NameTranslation { get; set; }

    /// <summary>The version of the meter the registry's instruments are published on; it becomes
    /// the <c>otel_scope_version</c> label of every sample of the registry.</summary>
    /// <remarks>Default: <see langword="null"/> (no version, no label).</remarks>
    public string? MeterVersion { get; set; }

    /// <summary>The <c>service.name</c> resource attribute: the <c>service_name</c> label of the
    /// scrape's <c>target_info</c>.</summary>
    /// <remarks>Default: <see langword="null"/>, which takes OpenTelemetry's resource from the
    /// environment (<c>OTEL_SERVICE_NAME</c>, <c>OTEL_RESOURCE_ATTRIBUTES</c>), else the entry
    /// assembly's name, else OpenTelemetry's <c>unknown_service:&lt;process&gt;</c>.</remarks>
    public string? ServiceName { get; set; }

    /// <summary>The <c>service.instance.id</c> resource attribute: the <c>service_instance_id</c> label of <c>target_info</c>.</summary>
    /// <remarks>Default: <see langword="null"/>, which takes OpenTelemetry's resource from the
    /// environment, else a new GUID per process (OpenTelemetry's <c>AddService</c> default).</remarks>
    public string? ServiceInstanceId { get; set; }

    /// <summary>The <c>service.version</c> resource attribute: the <c>service_version</c> label of <c>target_info</c>.</summary>
    /// <remarks>Default: <see langword="null"/>, which takes OpenTelemetry's resource from the
    /// environment, else the entry assembly's informational version, else none.</remarks>
    public string? ServiceVersion { get; set; }

    /// <summary>The registry's settings: its write path (<see cref="MetricRegistryOptions.Strategy"/>,
    /// <see cref="MetricRegistryOptions.UseRestartableSequences"/>, <see cref="MetricRegistryOptions.PartitionCount"/>),
    /// its exemplars (<see cref="MetricRegistryOptions.ExemplarFilter"/>, for the registry and every
    /// listened meter's instruments) and its limits (<see cref="MetricRegistryOptions.MaxSeriesPerInstrument"/>,
    /// <see cref="MetricRegistryOptions.MaxInstruments"/>, <see cref="MetricRegistryOptions.MaxTagsPerSeries"/>,
    /// <see cref="MetricRegistryOptions.MaxTagKeyLength"/>, <see cref="MetricRegistryOptions.MaxTagValueLength"/>).
    /// Bound from the configuration section <c>ScalableMetrics:Registry</c>.</summary>
    /// <remarks>
    /// <para>Defaults: <see cref="MetricRegistryOptions"/>'s. The host does not start when they are
    /// invalid (a partition count below what the machine needs, a limit out of range). With
    /// <c>UseOpenTelemetry()</c>, the OpenTelemetry <c>MeterProvider</c>'s cardinality limit for the registry's meter is set from
    /// <see cref="MetricRegistryOptions.MaxSeriesPerInstrument"/>, and its metric stream limit from
    /// <see cref="MetricRegistryOptions.MaxInstruments"/> (two streams per instrument, an
    /// <see cref="OperationData"/> being two instruments there, plus OpenTelemetry's default 1000 for
    /// other meters), so that it neither caps the registry's series nor drops its instruments.</para>
    /// <para>The same settings directly under <c>ScalableMetrics</c> (<c>ScalableMetrics:MaxSeriesPerInstrument</c>,
    /// the keys of the release before) are still read, below the <c>Registry</c> section's, for one
    /// more release, and the host logs a warning naming each such key.</para>
    /// </remarks>
    public MetricRegistryOptions Registry { get; } = new();

    /// <summary>
    /// The names of the <see cref="System.Diagnostics.Metrics.Meter"/>s whose instruments the
    /// registry aggregates itself, through a <see cref="System.Diagnostics.Metrics.MeterListener"/>
    /// (<c>Microsoft.AspNetCore.Hosting</c>, <c>System.Runtime</c>, <c>MyCompany.*</c>): every
    /// instrument of a matching meter, present and future, is recorded into a registry instrument
    /// of the same kind, name, unit, description and tags, exported with <c>otel_scope_name</c>
    /// the meter's name. Such a meter is not also aggregated by the <c>MeterProvider</c> (with <c>UseOpenTelemetry()</c>).
    /// </summary>
    /// <remarks>
    /// <para>Default: none. Bound from configuration as a list (<c>ScalableMetrics:Meters:0</c>).
    /// Names match as OpenTelemetry's <c>AddMeter</c> matches them: case-insensitively, where
    /// <c>*</c> stands for any run of characters and <c>?</c> for one. An empty name makes the
    /// options invalid (the host does not start); see <see cref="AddMeter"/>.</para>
    /// </remarks>
    public IList<string> Meters { get; } = new List<string>();

    /// <summary>
    /// Adds meter names (or wildcard patterns) to <see cref="Meters"/>: the instruments of every
    /// meter they match are aggregated by the registry, through a <c>MeterListener</c> (instead of
    /// the <c>MeterProvider</c>, with <c>UseOpenTelemetry()</c>).
    /// </summary>
    /// <param name="names">Meter names, matched case-insensitively; <c>*</c> matches any run of
    /// characters and <c>?</c> one (<c>MyCompany.*</c>), as in OpenTelemetry's <c>AddMeter</c>.</param>
    /// <returns>These options, to chain calls.</returns>
    /// <exception cref="ArgumentNullException"><paramref name="names"/>, or one of its names, is null.</exception>
    /// <exception cref="ArgumentException">One of <paramref name="names"/> is empty or white space; none is added.</exception>
    public ScalableMetricsOptions AddMeter(params string[] names)
    {
        ArgumentNullException.ThrowIfNull(names);
        foreach (string name in names)
        {
            ArgumentException.ThrowIfNullOrWhiteSpace(name, nameof(names));
        }

        foreach (string name in names)
        {
            Meters.Add(name);
        }

        return this;
    }

    /// <summary>
    /// The standalone scrape listener, for hosts without ASP.NET Core (a worker service): null,
    /// the default, for none. Set by <see cref="AddScrapeListener"/>, or bound from the configuration
    /// section <c>ScalableMetrics:ScrapeListener</c> (<c>Port</c>, <c>Path</c>, <c>Host</c>).
    /// </summary>
    /// <remarks>Default: <see langword="null"/>. Invalid settings (a port out of range, an empty path) make the host fail to start.</remarks>
    public ScrapeListenerOptions? ScrapeListener { get; set; }

    /// <summary>
    /// Serves the Prometheus scrape from a listener of its own (a Kestrel server apart from any the
    /// application runs), started and stopped with the host, as a worker service needs:
    /// <c>GET http://<paramref name="host"/>:<paramref name="port"/><paramref name="path"/></c>.
    /// </summary>
    /// <param name="port">The TCP port, 0 to 65535 (0 for a free port the system picks); by default 9464, OpenTelemetry's for its Prometheus HTTP listener.</param>
    /// <param name="path">The scrape's path, starting with <c>/</c>.</param>
    /// <param name="host">The address the listener binds to (<see cref="ScrapeListenerOptions.Host"/>); by default the loopback address only. <c>*</c> listens on every interface.</param>
    /// <returns>These options, to chain calls.</returns>
    /// <remarks>Replaces the port, path and host of a listener already set (in code, or bound from
    /// <c>ScalableMetrics:ScrapeListener</c>), and keeps its <see cref="ScrapeListenerOptions.WebConfigFile"/>:
    /// this call never turns TLS or authentication off.</remarks>
    /// <exception cref="ArgumentNullException"><paramref name="path"/> or <paramref name="host"/> is null.</exception>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="port"/> is not within 0 to 65535.</exception>
    /// <exception cref="ArgumentException"><paramref name="path"/> is empty or does not start with <c>/</c>, or <paramref name="host"/> is empty or white space, or holds a scheme, port or path (<c>localhost:9464</c>).</exception>
    public ScalableMetricsOptions AddScrapeListener(int port = ScrapeListenerOptions.DefaultPort, string path = ScrapeListenerOptions.DefaultPath, string host = ScrapeListenerOptions.DefaultHost)
    {
        ArgumentNullException.ThrowIfNull(path);
        ArgumentNullException.ThrowIfNull(host);
        ArgumentOutOfRangeException.ThrowIfLessThan(port, ScrapeListenerOptionsCheck.MinPort);
        ArgumentOutOfRangeException.ThrowIfGreaterThan(port, ScrapeListenerOptionsCheck.MaxPort);
        // The web configuration file (TLS, authentication) bound from the section, or set before,
        // is kept: port and host in code beside the deployment's file in its configuration is the
        // usual split, and dropping the file would serve the metrics in the clear to anyone.
        var listener = new ScrapeListenerOptions { Port = port, Path = path, Host = host, WebConfigFile = ScrapeListener?.WebConfigFile };
        if (ScrapeListenerOptionsCheck.Problem(listener) is string problem)
        {
            throw new ArgumentException(problem, problem.Contains(".Path ", StringComparison.Ordinal) ? nameof(path) : nameof(host));
        }

        ScrapeListener = listener;
        return this;
    }

    /// <summary>What other ScalableMetrics packages turned on here (the OpenTelemetry package's
    /// <c>UseOpenTelemetry()</c>), in order, one per kind; built once per container by <see cref="ScalableMetricsParts"/>.</summary>
    /// <remarks>Methods, not a property: the configuration binding generator rejects a property of a type it cannot bind, internal or not.</remarks>
    internal IReadOnlyList<IScalableMetricsFeature> GetFeatures() => _features;

    /// <summary>Turns <paramref name="feature"/> on, after those already on.</summary>
    internal void AddFeature(IScalableMetricsFeature feature) => _features.Add(feature);

    /// <summary>The feature of type <typeparamref name="TFeature"/>, added (last) if it is not there yet.</summary>
    internal TFeature GetOrAddFeature<TFeature>()
        where TFeature : IScalableMetricsFeature, new()
    {
        if (_features.OfType<TFeature>().FirstOrDefault() is { } feature)
        {
            return feature;
        }

        var added = new TFeature();
        _features.Add(added);
        return added;
    }

    /// <summary>The configuration keys of <see cref="Registry"/>'s settings found directly under the
    /// <c>ScalableMetrics</c> section (the keys of the release before), which the host logs a warning for.</summary>
    internal List<string> LegacyRegistryKeys { get; } = [];
}
