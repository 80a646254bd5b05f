using System.Net;
using System.Net.Sockets;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Options;
using ScalableMetrics.Exporter.OpenTelemetry.Otlp.Transport;

namespace ScalableMetrics.Exporter.Tests.OpenTelemetry.Otlp.Transport;

/// <summary>OTLP/HTTP against a receiver that answers well and badly: what is sent, retried, logged, and what an export returns.</summary>
public sealed class OtlpHttpTransportTests : IAsyncLifetime
{
    private static readonly byte[] s_body = [0x0A, 0x03, 0x01, 0x02, 0x03];
    private readonly OtlpTestClients _clients = new();
    private FaultInjectingOtlpReceiver _receiver = null!;

    public async Task InitializeAsync() => _receiver = await FaultInjectingOtlpReceiver.StartAsync();

    public async Task DisposeAsync()
    {
        await _receiver.DisposeAsync();
        _clients.Dispose();
    }

    [Fact]
    public async Task PostsTheBodyAsProtobufWithTheHeaders()
    {
        OtlpExportClient client = _clients.Http(_receiver.Url("/v1/metrics"), headers: new() { ["api-key"] = "secret value", ["x-tenant"] = "a" });

        Assert.True(await client.ExportAsync(s_body, CancellationToken.None));

        FaultInjectedRequest request = Assert.Single(_receiver.Requests);
        Assert.Equal("/v1/metrics", request.Path);
        Assert.Equal("application/x-protobuf", request.Headers["content-type"]);
        Assert.False(request.Headers.ContainsKey("content-encoding"));
        Assert.Equal("secret value", request.Headers["api-key"]);
        Assert.Equal("a", request.Headers["x-tenant"]);
        Assert.Equal(OtlpHeaders.UserAgent, request.Headers["user-agent"]);
        Assert.Equal(s_body, request.Raw);
        Assert.Empty(_clients.Logger.Messages);
    }

    // The exporter's User-Agent names it and its version; one the application configures is sent instead.
    [Fact]
    public async Task AConfiguredUserAgentIsSentInsteadOfTheExporters()
    {
        Assert.Matches(@"^ScalableMetrics-OTLP-Exporter-Dotnet/\d+\.\d+\.\d+[^+\s]*$", OtlpHeaders.UserAgent);
        OtlpExportClient client = _clients.Http(_receiver.Url("/v1/metrics"), headers: new() { ["user-agent"] = "my-app/2" });

        Assert.True(await client.ExportAsync(s_body, CancellationToken.None));

        Assert.Equal("my-app/2", Assert.Single(_receiver.Requests).Headers["user-agent"]);
    }

    // ScalableMetricsOtlpOptions: "Invalid settings stop the host at start with an
    // OptionsValidationException that names the setting". A header value outside ASCII (set in
    // code, or OTEL_EXPORTER_OTLP_HEADERS' percent-decoded tenant=M%C3%BCnchen) passed the check,
    // and every export then failed ("Request headers must contain only ASCII characters"), over
    // HTTP and gRPC alike, retried and logged, its data never sent.
    [Fact]
    public async Task AHeaderValueTheClientCannotSendStopsTheHostNamingTheOption()
    {
        OtlpExportClient client = _clients.Http(_receiver.Url("/v1/metrics"), headers: new() { ["x-tenant"] = "München" }, exportTimeout: TimeSpan.FromSeconds(2));
        Assert.False(await client.ExportAsync(s_body, CancellationToken.None));
        Assert.Empty(_receiver.Requests);

        var builder = new HostApplicationBuilder(new HostApplicationBuilderSettings { DisableDefaults = true });
        builder.AddScalableMetrics(o => o.AddOtlpExporter(otlp =>
        {
            otlp.Endpoint = _receiver.Url("/v1/metrics");
            otlp.Headers["x-tenant"] = "München";
        }));
        using IHost host = builder.Build();

        Exception? error = await Record.ExceptionAsync(() => host.StartAsync());

        string message = Assert.IsType<OptionsValidationException>(error).Message;
        Assert.Contains("Headers", message, StringComparison.Ordinal);
        Assert.Contains("'x-tenant'", message, StringComparison.Ordinal);
        Assert.DoesNotContain("München", message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task GzipsTheBody()
    {
        byte[] body = [.. Enumerable.Range(0, 4096).Select(i => (byte)(i % 7))];
        OtlpExportClient client = _clients.Http(_receiver.Url("/v1/metrics"), OtlpCompression.Gzip);

        Assert.True(await client.ExportAsync(body, CancellationToken.None));

        FaultInjectedRequest request = Assert.Single(_receiver.Requests);
        Assert.Equal("gzip", request.Headers["content-encoding"]);
        Assert.True(request.Raw.Length < body.Length / 4);
        Assert.Equal(body, request.Message);
    }

    [Theory]
    [InlineData(429)]
    [InlineData(502)]
    [InlineData(503)]
    [InlineData(504)]
    public async Task RetriesAfterRetryAfterThenSucceeds(int code)
    {
        _receiver.Enqueue(new OtlpFault.Answer(code, "busy", RetryAfter: TimeSpan.FromSeconds(7)));
        OtlpExportClient client = _clients.Http(_receiver.Url("/v1/metrics"));

        Assert.True(await client.ExportAsync(s_body, CancellationToken.None));

        Assert.Equal(2, _receiver.Requests.Count);
        Assert.All(_receiver.Requests, r => Assert.Equal(s_body, r.Raw));
        Assert.Equal([TimeSpan.FromSeconds(7)], _clients.Delays);
        Assert.Empty(_clients.Warnings);
    }

    [Fact]
    public async Task ReadsRetryAfterAsADate()
    {
        _receiver.Enqueue(new OtlpFault.Answer(503, RetryAfter: TimeSpan.FromSeconds(20), RetryAfterAsDate: true));
        OtlpExportClient client = _clients.Http(_receiver.Url("/v1/metrics"));

        Assert.True(await client.ExportAsync(s_body, CancellationToken.None));

        // An HTTP date has whole seconds: the wait is within a second or two of 20 s, whatever the clock did.
        TimeSpan delay = Assert.Single(_clients.Delays);
        Assert.InRange(delay, TimeSpan.FromSeconds(17), TimeSpan.FromSeconds(21));
    }

    [Fact]
    public async Task BacksOffWithJitterWhenNoRetryAfterAndGivesUpAfterFiveAttempts()
    {
        _receiver.Enqueue(Enumerable.Repeat<OtlpFault>(new OtlpFault.Answer(503), 6).ToArray());
        OtlpExportClient client = _clients.Http(_receiver.Url("/v1/metrics"));

        Assert.False(await client.ExportAsync(s_body, CancellationToken.None));

        Assert.Equal(5, _receiver.Requests.Count);
        Assert.Equal(4, _clients.Delays.Count);
        double[] ceilings = [1, 1.5, 2.25, 3.375];
        for (int i = 0; i < ceilings.Length; i++)
        {
            Assert.InRange(_clients.Delays[i].TotalSeconds, 0, ceilings[i]);
        }

        Assert.Contains("HTTP 503", Assert.Single(_clients.Warnings));
    }

    [Fact]
    public async Task GivesUpAtOnceWhenRetryAfterEndsPastTheExportTimeout()
    {
        _receiver.Enqueue(new OtlpFault.Answer(429, RetryAfter: TimeSpan.FromHours(1)));
        OtlpExportClient client = _clients.Http(_receiver.Url("/v1/metrics"), exportTimeout: TimeSpan.FromSeconds(30));

        Assert.False(await client.ExportAsync(s_body, CancellationToken.None));

        Assert.Single(_receiver.Requests);
        Assert.Empty(_clients.Delays);
        Assert.Contains("export timeout", Assert.Single(_clients.Warnings));
    }

    [Fact]
    public async Task ARefusalWithAStatusIsNotRetriedAndIsLoggedOnceWithItsMessage()
    {
        _receiver.Enqueue(new OtlpFault.Answer(400, "metric name is invalid"), new OtlpFault.Answer(400, "metric name is invalid"), new OtlpFault.Answer(400, "metric name is invalid"));
        OtlpExportClient client = _clients.Http(_receiver.Url("/v1/metrics"));

        for (int i = 0; i < 3; i++)
        {
            Assert.False(await client.ExportAsync(s_body, CancellationToken.None));
        }

        Assert.Equal(3, _receiver.Requests.Count);
        Assert.Empty(_clients.Delays);
        string warning = Assert.Single(_clients.Warnings);
        Assert.Contains("HTTP 400: metric name is invalid", warning);

        // The next export is taken whole, and said so once.
        Assert.True(await client.ExportAsync(s_body, CancellationToken.None));
        Assert.Contains("succeed again", _clients.Warnings.Last());
    }

    [Fact]
    public async Task APartialSuccessIsAcceptedAndLoggedOnce()
    {
        _receiver.Enqueue(new OtlpFault.PartialSuccess(3, "3 points had no value"), new OtlpFault.PartialSuccess(2, "2 points had no value"));
        OtlpExportClient client = _clients.Http(_receiver.Url("/v1/metrics"));

        Assert.True(await client.ExportAsync(s_body, CancellationToken.None));
        Assert.True(await client.ExportAsync(s_body, CancellationToken.None));

        Assert.Equal(2, _receiver.Requests.Count);
        string warning = Assert.Single(_clients.Warnings);
        Assert.Contains("rejected 3 data point(s)", warning);
        Assert.Contains("3 points had no value", warning);
    }

    [Fact]
    public async Task AReceiverPastTheTimeoutIsRetriedWithinTheExportTimeoutThenLoggedOnce()
    {
        _receiver.Enqueue(Enumerable.Repeat<OtlpFault>(new OtlpFault.Slow(TimeSpan.FromMinutes(5)), 10).ToArray());
        OtlpExportClient client = _clients.Http(_receiver.Url("/v1/metrics"), timeout: TimeSpan.FromMilliseconds(200));

        Assert.False(await client.ExportAsync(s_body, CancellationToken.None));
        Assert.False(await client.ExportAsync(s_body, CancellationToken.None));

        // Five attempts an export, four waits between them: counted by the client, since an attempt
        // cancelled at its timeout may never reach the receiver on a busy machine.
        Assert.Equal(8, _clients.Delays.Count);
        Assert.InRange(_receiver.Requests.Count, 1, 10);
        Assert.Contains("request timeout", Assert.Single(_clients.Warnings));
        Assert.True(await client.ExportAsync(s_body, CancellationToken.None));
    }

    [Fact]
    public async Task AConnectionClosedWithoutAnAnswerIsRetried()
    {
        _receiver.Enqueue(new OtlpFault.CloseWithoutAnswer());
        OtlpExportClient client = _clients.Http(_receiver.Url("/v1/metrics"));

        Assert.True(await client.ExportAsync(s_body, CancellationToken.None));

        Assert.Equal(2, _receiver.Requests.Count);
        Assert.Single(_clients.Delays);
    }

    [Fact]
    public async Task AnAnswerBrokenOffAfterA200CountsAsAcceptedAndIsLoggedOnce()
    {
        _receiver.Enqueue(new OtlpFault.CloseMidBody(200), new OtlpFault.CloseMidBody(200));
        OtlpExportClient client = _clients.Http(_receiver.Url("/v1/metrics"));

        Assert.True(await client.ExportAsync(s_body, CancellationToken.None));
        Assert.True(await client.ExportAsync(s_body, CancellationToken.None));

        Assert.Equal(2, _receiver.Requests.Count);
        Assert.Contains("could not be read", Assert.Single(_clients.Warnings));
    }

    [Fact]
    public async Task AnOversizedAnswerIsReadOnlyUpToItsLimit()
    {
        _receiver.Enqueue(new OtlpFault.HugeBody(64 * 1024 * 1024));
        OtlpExportClient client = _clients.Http(_receiver.Url("/v1/metrics"));

        Assert.True(await client.ExportAsync(s_body, CancellationToken.None));

        Assert.Contains("over 64 KiB", Assert.Single(_clients.Warnings));
    }

    [Fact]
    public async Task A503BrokenOffMidBodyIsRetried()
    {
        _receiver.Enqueue(new OtlpFault.CloseMidBody(503));
        OtlpExportClient client = _clients.Http(_receiver.Url("/v1/metrics"));

        Assert.True(await client.ExportAsync(s_body, CancellationToken.None));

        Assert.Equal(2, _receiver.Requests.Count);
    }

    [Fact]
    public async Task AReceiverThatIsDownIsLoggedOnceAcrossExports()
    {
        Uri down = new($"http://127.0.0.1:{ClosedPort()}/v1/metrics");
        OtlpExportClient client = _clients.Http(down);

        Assert.False(await client.ExportAsync(s_body, CancellationToken.None));
        Assert.False(await client.ExportAsync(s_body, CancellationToken.None));

        Assert.Equal(8, _clients.Delays.Count);
        string warning = Assert.Single(_clients.Warnings);
        Assert.Contains("after 5 attempt(s)", warning);
        Assert.Contains("ConnectionError", warning);
    }

    [Fact]
    public async Task ACancelledExportReturnsFalseWithoutLogging()
    {
        _receiver.Enqueue(new OtlpFault.Slow(TimeSpan.FromMinutes(5)));
        OtlpExportClient client = _clients.Http(_receiver.Url("/v1/metrics"));
        using var cancel = new CancellationTokenSource();
        Task<bool> export = client.ExportAsync(s_body, cancel.Token);
        Assert.True(await _receiver.WaitForRequestsAsync(1));

        await cancel.CancelAsync();

        Assert.False(await export);
        Assert.Empty(_clients.Logger.Messages);
    }

    // A port nothing listens on: bound, then let go.
    private static int ClosedPort()
    {
        using var socket = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp);
        socket.Bind(new IPEndPoint(IPAddress.Loopback, 0));
        return ((IPEndPoint)socket.LocalEndPoint!).Port;
    }
}
