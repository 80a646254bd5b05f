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

    /// <summary>An OTLP/HTTP client timed by <paramref name="clock"/>, whose requests each take
    /// <paramref name="latency"/> of it before they reach the receiver (<see cref="SlowTransport"/>).</summary>
    public (OtlpExportClient Client, SlowTransport Transport) SlowHttp(Uri endpoint, ManualClock clock, TimeSpan latency, TimeSpan timeout, TimeSpan exportTimeout)
    {
        var transport = new SlowTransport(new OtlpHttpTransport(() => _http, endpoint, OtlpCompression.None, new Dictionary<string, string>(), TimeProvider.System), clock, latency);
        var client = new OtlpExportClient(transport, timeout, exportTimeout, Logger, (delay, _) =>
        {
            lock (Delays)
            {
                Delays.Add(delay);
            }

            return Task.CompletedTask;
        }, clock: clock);
        return (client, transport);
    }

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

/// <summary>A transport whose requests take time on a <see cref="ManualClock"/> before they reach the
/// receiver, in ten steps, each after a look at the cancellation: one cancelled meanwhile (its timeout
/// fell due) is never sent; one whose last step reaches its timeout is sent.</summary>
internal sealed class SlowTransport(IOtlpTransport inner, ManualClock clock, TimeSpan latency) : IOtlpTransport
{
    /// <summary>How long each request takes on the clock before it is sent; settable between exports.</summary>
    public TimeSpan Latency { get; set; } = latency;

    public Uri Endpoint => inner.Endpoint;

    public ReadOnlyMemory<byte> Prepare(ReadOnlyMemory<byte> request) => inner.Prepare(request);

    public Task<OtlpAttempt> SendAsync(ReadOnlyMemory<byte> payload, CancellationToken cancellationToken)
    {
        for (int step = 0; step < 10; step++)
        {
            cancellationToken.ThrowIfCancellationRequested();
            clock.Advance(Latency / 10);
        }

        // On its way since its first step: not cut now, however the clock stands.
        return inner.SendAsync(payload, CancellationToken.None);
    }
}
