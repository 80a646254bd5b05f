namespace ScalableMetrics.Exporter;

/// <summary>
/// Settings of the OTLP exporter that <c>AddOtlpExporter</c> turns on: where and how it pushes the
/// registries (every registry taken with <c>AddMeter</c> included) as OTLP metrics. Read once, when
/// the host starts; not thread-safe to change after.
/// </summary>
/// <remarks>
/// <para>Each setting is taken, first to last, from the code (<c>AddOtlpExporter(o =&gt; ...)</c>),
/// the configuration section <c>ScalableMetrics:Otlp</c> (<c>ScalableMetrics:Otlp:Endpoint</c>,
/// <c>:Protocol</c>, <c>:Headers:NAME</c>, <c>:Timeout</c>, <c>:Compression</c>, <c>:Temporality</c>,
/// <c>:ExportInterval</c>, <c>:ExportTimeout</c>), OpenTelemetry's environment variables as the
/// configuration holds them (<c>OTEL_EXPORTER_OTLP_ENDPOINT</c>, <c>OTEL_EXPORTER_OTLP_METRICS_ENDPOINT</c>,
/// <c>..._HEADERS</c>, <c>..._TIMEOUT</c>, <c>..._COMPRESSION</c>, <c>..._PROTOCOL</c>,
/// <c>OTEL_METRIC_EXPORT_INTERVAL</c>, <c>OTEL_METRIC_EXPORT_TIMEOUT</c>,
/// <c>OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE</c>), then the defaults below, as the
/// OpenTelemetry specification's "Exporter configuration" sets them.</para>
/// <para>Invalid settings stop the host at start with an <c>OptionsValidationException</c> that names
/// the setting (its option, configuration key or variable).</para>
/// </remarks>
public sealed class ScalableMetricsOtlpOptions
{
    /// <summary>The name of the <see cref="System.Net.Http.IHttpClientFactory"/> client the exporter
    /// sends with: <c>ScalableMetrics.Otlp</c>. Configure it (<c>services.AddHttpClient(HttpClientName)</c>)
    /// for a proxy or a handler of your own; <see cref="CertificateFile"/> and <see cref="ClientCertificateFile"/>
    /// are set on its primary handler, your own included, whether configured before or after <c>AddScalableMetrics</c>;
    /// a primary handler that is neither a <see cref="System.Net.Http.SocketsHttpHandler"/> nor an
    /// <see cref="System.Net.Http.HttpClientHandler"/> stops the host at start where they are set.</summary>
    public const string HttpClientName = ScalableMetrics.Exporter.Hosting.ExporterHttpClient.Name;

    /// <summary>The default of <see cref="Timeout"/>: 10 seconds, OpenTelemetry's.</summary>
    public static readonly TimeSpan DefaultTimeout = TimeSpan.FromSeconds(10);

    /// <summary>The default of <see cref="ExportInterval"/>: 60 seconds, OpenTelemetry's.</summary>
    public static readonly TimeSpan DefaultExportInterval = TimeSpan.FromSeconds(60);

    /// <summary>The default of <see cref="ExportTimeout"/>: 30 seconds, OpenTelemetry's.</summary>
    public static readonly TimeSpan DefaultExportTimeout = TimeSpan.FromSeconds(30);

    /// <summary>The receiver's URL, used as it is: the full <c>/v1/metrics</c> URL for
    /// <see cref="OtlpProtocol.HttpProtobuf"/>, the server's root for <see cref="OtlpProtocol.Grpc"/>.
    /// Absolute, <c>http</c> or <c>https</c>.</summary>
    /// <remarks>Default: <see langword="null"/>, which takes <c>OTEL_EXPORTER_OTLP_METRICS_ENDPOINT</c>
    /// as it is, else <c>OTEL_EXPORTER_OTLP_ENDPOINT</c> with <c>/v1/metrics</c> appended for HTTP
    /// (as it is for gRPC), else <c>http://localhost:4318/v1/metrics</c> (HTTP) or
    /// <c>http://localhost:4317</c> (gRPC).</remarks>
    public Uri? Endpoint { get; set; }

    /// <summary>The transport: OTLP/HTTP protobuf or OTLP/gRPC.</summary>
    /// <remarks>Default: <see cref="OtlpProtocol.HttpProtobuf"/> (<c>OTEL_EXPORTER_OTLP_PROTOCOL</c>
    /// <c>http/protobuf</c>; <c>grpc</c> for gRPC).</remarks>
    public OtlpProtocol Protocol { get; set; } = OtlpProtocol.HttpProtobuf;

    /// <summary>Headers sent with every request (an API key, a tenant), by name. Names must be
    /// HTTP tokens; values must be ASCII, without line breaks or NUL (HttpClient sends no other).</summary>
    /// <remarks>Default: none. <c>OTEL_EXPORTER_OTLP_HEADERS</c> and <c>OTEL_EXPORTER_OTLP_METRICS_HEADERS</c>
    /// (which wins per name) are read as <c>name=value,name2=value2</c>, percent-decoded. A name that is not a token,
    /// a header the exporter sets itself, or a value outside ASCII (<c>tenant=M%C3%BCnchen</c> decoded) stops the host at
    /// start, naming the header, never its value.</remarks>
    public IDictionary<string, string> Headers { get; } = new Dictionary<string, string>(StringComparer.OrdinalIgnoreCase);

    /// <summary>How long one request may take, from sending to the whole answer; a request still
    /// running past it is abandoned and retried while <see cref="ExportTimeout"/> allows.</summary>
    /// <remarks>Default: <see cref="DefaultTimeout"/> (10 s; <c>OTEL_EXPORTER_OTLP_TIMEOUT</c> in
    /// milliseconds, where <c>0</c> is no limit, taken as one day). Must be positive and at most one day.</remarks>
    public TimeSpan Timeout { get; set; } = DefaultTimeout;

    /// <summary>The compression of request bodies.</summary>
    /// <remarks>Default: <see cref="OtlpCompression.None"/> (<c>OTEL_EXPORTER_OTLP_COMPRESSION</c>
    /// <c>none</c> or <c>gzip</c>).</remarks>
    public OtlpCompression Compression { get; set; } = OtlpCompression.None;

    /// <summary>The aggregation temporality of the exported sums and histograms; with
    /// <see cref="OtlpTemporality.Delta"/> or <see cref="OtlpTemporality.LowMemory"/>, a failed
    /// export's changes are sent with the next one.</summary>
    /// <remarks>Default: <see cref="OtlpTemporality.Cumulative"/>. <c>OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE</c>
    /// <c>cumulative</c>, <c>delta</c>, or <c>lowmemory</c> (<see cref="OtlpTemporality.LowMemory"/>:
    /// delta for synchronous counters and histograms, cumulative for observable counters).</remarks>
    public OtlpTemporality Temporality { get; set; } = OtlpTemporality.Cumulative;

    /// <summary>The time from one periodic export's start to the next's. The exporter also exports
    /// once when the host stops.</summary>
    /// <remarks>Default: <see cref="DefaultExportInterval"/> (60 s; <c>OTEL_METRIC_EXPORT_INTERVAL</c>
    /// in milliseconds). Must be positive and at most one day.</remarks>
    public TimeSpan ExportInterval { get; set; } = DefaultExportInterval;

    /// <summary>How long one export may take, retries included, and every request of an export split
    /// under <see cref="MaxRequestBytes"/> with them; an export still failing past it is given up,
    /// logged, and its data (its requests not yet accepted) sent with the next export.</summary>
    /// <remarks>Default: <see cref="DefaultExportTimeout"/> (30 s; <c>OTEL_METRIC_EXPORT_TIMEOUT</c>
    /// in milliseconds, where <c>0</c> is no limit, taken as one day). Must be positive and at most one day.</remarks>
    public TimeSpan ExportTimeout { get; set; } = DefaultExportTimeout;

    /// <summary>The path of a PEM file of the CA certificates the receiver's TLS certificate is
    /// verified against, instead of the system's trust store (a private CA's receiver).</summary>
    /// <remarks>Default: <see langword="null"/>, the system's trust store
    /// (<c>OTEL_EXPORTER_OTLP_CERTIFICATE</c>, <c>OTEL_EXPORTER_OTLP_METRICS_CERTIFICATE</c>). Read
    /// when the host starts; a file that does not load stops it. Applies to OTLP/HTTP and gRPC alike.</remarks>
    public string? CertificateFile { get; set; }

    /// <summary>The path of the PEM certificate the exporter presents to a receiver that asks for
    /// one (mutual TLS); its private key is in <see cref="ClientKeyFile"/>, or in this file where
    /// that is not set.</summary>
    /// <remarks>Default: <see langword="null"/>, none (<c>OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE</c>,
    /// <c>OTEL_EXPORTER_OTLP_METRICS_CLIENT_CERTIFICATE</c>). Read when the host starts; a file that
    /// does not load stops it.</remarks>
    public string? ClientCertificateFile { get; set; }

    /// <summary>The path of the PEM private key (PKCS#8, or RSA or EC) of <see cref="ClientCertificateFile"/>.</summary>
    /// <remarks>Default: <see langword="null"/>: the key is in the certificate's file
    /// (<c>OTEL_EXPORTER_OTLP_CLIENT_KEY</c>, <c>OTEL_EXPORTER_OTLP_METRICS_CLIENT_KEY</c>). Set
    /// without <see cref="ClientCertificateFile"/>, the host does not start.</remarks>
    public string? ClientKeyFile { get; set; }

    /// <summary>The default of <see cref="MaxRequestBytes"/>: 3 MiB (3,145,728 bytes), safely under the
    /// 4 MiB that gRPC servers, the OpenTelemetry Collector's receiver among them (<c>max_recv_msg_size_mib</c>), take by default.</summary>
    public const int DefaultMaxRequestBytes = 3 * 1024 * 1024;

    /// <summary>The largest request an export sends, in bytes of the uncompressed
    /// <c>ExportMetricsServiceRequest</c>: a larger collection goes as several requests, each of whole
    /// data points under its own copy of the resource, scope and metric, and is committed (for delta
    /// temporality, its changes counted as sent) only when every request was accepted.</summary>
    /// <remarks>Default: <see cref="DefaultMaxRequestBytes"/> (3 MiB). Must be at least 1,024. The size
    /// counted is the uncompressed one, which is what a gRPC receiver checks (after decompression) and
    /// never less than a gzip-compressed body. OpenTelemetry has no option of this measure: its
    /// <c>MaxExportBatchSize</c> and the Collector's <c>send_batch_max_size</c> count data points,
    /// which bound a request's size only as far as every point has the same size. Configuration key
    /// <c>ScalableMetrics:Otlp:MaxRequestBytes</c>.</remarks>
    public int MaxRequestBytes { get; set; } = DefaultMaxRequestBytes;

    /// <summary>Whether <c>AddOtlpExporter</c> turned the exporter on for the host's options.</summary>
    internal bool Enabled { get; set; }

    /// <summary><c>OTEL_EXPORTER_OTLP_ENDPOINT</c>: a base URL, <c>/v1/metrics</c> appended for HTTP.</summary>
    internal Uri? BaseEndpoint { get; set; }

    /// <summary>Settings read from configuration that could not be parsed, each naming its key.</summary>
    internal List<string> Problems { get; } = [];

    /// <summary>The URL requests go to: <see cref="Endpoint"/>, else the base endpoint, else the default.</summary>
    internal Uri ResolvedEndpoint()
    {
        if (Endpoint is not null)
        {
            return Endpoint;
        }

        if (BaseEndpoint is not null)
        {
            // The signal's path goes on the base URL's path, before any query.
            return Protocol == OtlpProtocol.HttpProtobuf
                ? new UriBuilder(BaseEndpoint) { Path = BaseEndpoint.AbsolutePath.TrimEnd('/') + "/v1/metrics" }.Uri
                : BaseEndpoint;
        }

        return Protocol == OtlpProtocol.HttpProtobuf
            ? new Uri("http://localhost:4318/v1/metrics")
            : new Uri("http://localhost:4317");
    }
}
