using ScalableMetrics.Exporter.OpenTelemetry.Otlp.Transport;

namespace ScalableMetrics.Exporter.Tests.OpenTelemetry.Otlp.Transport;

/// <summary>Export clients for a receiver, their waits recorded instead of waited.</summary>
internal sealed class OtlpTestClients : IDisposable
{
    private readonly HttpClient _http = new() { Timeout = System.Threading.Timeout.InfiniteTimeSpan };

    public List<TimeSpan> Delays { get; } = [];

    public ListLogger Logger { get; } = new();

    /// <summary>What the failure log wrote above Debug (its repeats and stacks are Debug).</summary>
    public List<string> Warnings => [.. Logger.Events.Where(e => e.Level > Microsoft.Extensions.Logging.LogLevel.Debug).Select(e => e.Message)];

    public OtlpExportClient Http(Uri endpoint, OtlpCompression compression = OtlpCompression.None, Dictionary<string, string>? headers = null, TimeSpan? timeout = null, TimeSpan? exportTimeout = null) =>
        Client(new OtlpHttpTransport(() => _http, endpoint, compression, headers ?? [], TimeProvider.System), timeout, exportTimeout);

    public OtlpExportClient Grpc(Uri endpoint, OtlpCompression compression = OtlpCompression.None, Dictionary<string, string>? headers = null, TimeSpan? timeout = null) =>
        Client(new OtlpGrpcTransport(() => _http, endpoint, compression, headers ?? [], timeout ?? TimeSpan.FromSeconds(10)), timeout, null);

    public void Dispose() => _http.Dispose();

    private OtlpExportClient Client(IOtlpTransport transport, TimeSpan? timeout, TimeSpan? exportTimeout) =>
        new(transport, timeout ?? TimeSpan.FromSeconds(10), exportTimeout ?? TimeSpan.FromSeconds(30), Logger, (delay, _) =>
        {
            lock (Delays)
            {
                Delays.Add(delay);
            }

            return Task.CompletedTask;
        });
}
