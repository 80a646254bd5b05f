using System.Diagnostics;
using Microsoft.Extensions.Logging.Abstractions;
using ScalableMetrics.Exporter.Hosting;
using ScalableMetrics.Exporter.Listening;
using ScalableMetrics.Exporter.OpenTelemetry.Otlp.Encoding;
using ScalableMetrics.Exporter.Prometheus.SelfMetrics;

namespace ScalableMetrics.Exporter.OpenTelemetry.Otlp.Transport;

/// <summary>
/// The periodic push of the <see cref="OtlpPart"/> that <c>AddOtlpExporter</c> turns on: an export
/// every <see cref="ScalableMetricsOtlpOptions.ExportInterval"/> from the host's start, and a final
/// one when the host stops, within the stop's time. A gate keeps exports one at a time, so the
/// collector is never read twice at once and the final export waits for a periodic one in flight.
/// That one is not cut when the host stops (its <c>stoppingToken</c>): it runs to its answer, within
/// the export timeout, and is cancelled only when the stop's own time runs out, so that the final
/// export does not send its data again (a delta export's changes counted twice).
/// A batch is committed only when the receiver took every request of it (<see cref="OtlpBatchSender"/>:
/// split under <see cref="ScalableMetricsOtlpOptions.MaxRequestBytes"/>), so a delta export's changes carry over.
/// </summary>
internal sealed class OtlpExportService(IServiceProvider services, ScalableMetricsOtlpOptions options) : BackgroundService
{
    private readonly SemaphoreSlim _gate = new(1, 1); // never disposed: see Dispose

    // Cancelled when the stop's own time (its cancellation token) runs out: what cuts a periodic
    // export in flight. Not disposed: it has no timer and no wait handle, and an export that
    // outlived the stop may still hold its token.
    private readonly CancellationTokenSource _stopTimeUp = new();
    private OtlpMetricsCollector? _collector;
    private OtlpExportClient? _client;
    private OtlpBatchSender? _sender;
    private TimeSpan _interval;

    public override Task StartAsync(CancellationToken cancellationToken)
    {
        // Built only by the OtlpPart that AddOtlpExporter turns on, with settled, valid options.
        Debug.Assert(options.Enabled, "the part builds the service only for an exporter turned on");
        _interval = options.ExportInterval;
        _collector = CreateCollector(options.Temporality);
        _client = CreateClient(services, options);
        _sender = new OtlpBatchSender(_client, options.MaxRequestBytes);
        if (options.CertificateFile is not null || options.ClientCertificateFile is not null)
        {
            // The client's handler is built now, certificates set: a primary handler of the
            // application's that takes none stops the start, naming the options (OtlpTls.Configure),
            // rather than every export failing, or one sending without them.
            using HttpClient probe = services.GetRequiredService<IHttpClientFactory>().CreateClient(ScalableMetricsOtlpOptions.HttpClientName);
        }

        return base.StartAsync(cancellationToken);
    }

    public override async Task StopAsync(CancellationToken cancellationToken)
    {
        // The periodic loop ends (base.StopAsync cancels its stoppingToken) once the export in flight,
        // if any, is answered; only the stop's own time running out cuts that export.
        CancellationTokenRegistration timeUp = cancellationToken.Register(static state => ((CancellationTokenSource)state!).Cancel(), _stopTimeUp);
        try
        {
            await base.StopAsync(cancellationToken).ConfigureAwait(false);
            if (_client is not null)
            {
                await ExportAsync(cancellationToken).ConfigureAwait(false);
            }
        }
        finally
        {
            // base.StopAsync may return inside the token's cancellation, before this registration's
            // callback ran (callbacks run last registered first), and disposing it would drop that
            // callback: the export in flight is cut here instead.
            if (cancellationToken.IsCancellationRequested)
            {
                _stopTimeUp.Cancel();
            }

            timeUp.Dispose();
        }
    }

    // An export still in flight (the stop's time ran out, or the host gave up waiting for the stop)
    // is cut now; it may still be unwinding after this returns, and releases the gate when it ends,
    // so the gate is not disposed: a SemaphoreSlim whose wait handle is never asked for holds
    // nothing that needs disposing.
    public override void Dispose()
    {
        _stopTimeUp.Cancel();
        base.Dispose();
    }

    /// <summary>Collects and sends one export, after the one in flight if any. Never throws: a failure is
    /// logged (once per cause), a cancellation ends it quietly, and either leaves the batch uncommitted.</summary>
    internal async Task ExportAsync(CancellationToken cancellationToken)
    {
        if (_collector is null || _client is null || _sender is null)
        {
            return;
        }

        try
        {
            await _gate.WaitAsync(cancellationToken).ConfigureAwait(false);
        }
        catch (OperationCanceledException)
        {
            return;
        }

        try
        {
            await _sender.ExportAsync(_collector, cancellationToken).ConfigureAwait(false);
        }
        catch (Exception e) when (e is not OperationCanceledException)
        {
            // The application is never thrown into: a bug here costs exports, not the host.
            _client.Log.ExportThrew(e);
        }
        finally
        {
            _gate.Release();
        }
    }

    protected override async Task ExecuteAsync(CancellationToken stoppingToken)
    {
        if (_client is null)
        {
            return;
        }

        using var timer = new PeriodicTimer(_interval);
        try
        {
            while (await timer.WaitForNextTickAsync(stoppingToken).ConfigureAwait(false))
            {
                // Not stoppingToken: an export cut when the host stops may have reached the receiver,
                // and the final export would send its data again. It ends at its answer or its
                // export timeout, or when the stop's time is up.
                await ExportAsync(_stopTimeUp.Token).ConfigureAwait(false);
            }
        }
        catch (OperationCanceledException) when (stoppingToken.IsCancellationRequested)
        {
        }
    }

    internal static OtlpExportClient CreateClient(IServiceProvider services, ScalableMetricsOtlpOptions options)
    {
        IHttpClientFactory factory = services.GetRequiredService<IHttpClientFactory>();
        HttpClient Client()
        {
            // The client's own 100 s timeout would cut a longer configured Timeout: the exporter's
            // cancellation tokens time every attempt and export instead.
            HttpClient client = factory.CreateClient(ScalableMetricsOtlpOptions.HttpClientName);
            client.Timeout = Timeout.InfiniteTimeSpan;
            return client;
        }

        Dictionary<string, string> headers = new(options.Headers, StringComparer.OrdinalIgnoreCase);
        Uri endpoint = options.ResolvedEndpoint();
        TimeProvider time = services.GetService<TimeProvider>() ?? TimeProvider.System;
        IOtlpTransport transport = options.Protocol == OtlpProtocol.Grpc
            ? new OtlpGrpcTransport(Client, endpoint, options.Compression, headers, options.Timeout)
            : new OtlpHttpTransport(Client, endpoint, options.Compression, headers, time);
        ILogger logger = (ILogger?)services.GetService<ILoggerFactory>()?.CreateLogger<OtlpExportService>() ?? NullLogger.Instance;

        // The waits between attempts run on the container's clock, so that a test can drive them.
        return new OtlpExportClient(transport, options.Timeout, options.ExportTimeout, logger, (wait, token) => Task.Delay(wait, time, token));
    }

    // Scopes: the hosted registry under the options' meter name and version, then every registry a
    // listened meter's instruments went to, read again at each export (meters come and go), then,
    // where ExportSelfMetrics asks for them, the self-metrics' registry, as the scrape writes them.
    private OtlpMetricsCollector CreateCollector(OtlpTemporality temporality)
    {
        ScalableMetricsOptions host = services.GetRequiredService<IOptions<ScalableMetricsOptions>>().Value;
        MetricRegistry registry = services.GetRequiredService<MetricRegistry>();
        MeterListenerHost listened = services.GetRequiredService<MeterListenerHost>();
        OtlpScope[] self = host.ExportSelfMetrics ? [OtlpScope.Of(services.GetRequiredService<SelfMetricsRegistry>())] : [];
        IEnumerable<OtlpScope> Scopes() => [new OtlpScope(host.MeterName, host.MeterVersion, registry), .. OtlpScope.Of(listened), .. self];
        ILogger logger = (ILogger?)services.GetService<ILoggerFactory>()?.CreateLogger<OtlpMetricsCollector>() ?? NullLogger.Instance;
        return new OtlpMetricsCollector(Scopes, [.. ServiceResource.Attributes(host)], temporality, logger, services.GetService<TimeProvider>());
    }
}
