using System.Buffers.Binary;
using ScalableMetrics.Exporter.OpenTelemetry.Otlp.Transport;

namespace ScalableMetrics.Exporter.Tests.OpenTelemetry.Otlp.Transport;

/// <summary>OTLP/gRPC framed over HTTP/2 by hand: the call as a gRPC server sees it, and its statuses.</summary>
public sealed class OtlpGrpcTransportTests : IAsyncLifetime
{
    private static readonly byte[] s_body = [0x0A, 0x03, 0x01, 0x02, 0x03];
    private readonly OtlpTestClients _clients = new();
    private FaultInjectingOtlpReceiver _receiver = null!;

    public async Task InitializeAsync() => _receiver = await FaultInjectingOtlpReceiver.StartAsync(http2: true);

    public async Task DisposeAsync()
    {
        await _receiver.DisposeAsync();
        _clients.Dispose();
    }

    [Fact]
    public async Task CallsExportOverHttp2WithOneLengthPrefixedMessage()
    {
        OtlpExportClient client = _clients.Grpc(_receiver.BaseAddress, headers: new() { ["api-key"] = "k" }, timeout: TimeSpan.FromSeconds(3));

        Assert.True(await client.ExportAsync(s_body, CancellationToken.None));

        FaultInjectedRequest request = Assert.Single(_receiver.Requests);
        Assert.Equal("HTTP/2", request.Protocol);
        Assert.Equal("/opentelemetry.proto.collector.metrics.v1.MetricsService/Export", request.Path);
        Assert.Equal("application/grpc", request.Headers["content-type"]);
        Assert.Equal("trailers", request.Headers["te"]);
        Assert.Equal("3000m", request.Headers["grpc-timeout"]);
        Assert.Equal("k", request.Headers["api-key"]);
        Assert.Equal(OtlpHeaders.UserAgent, request.Headers["user-agent"]);
        Assert.False(request.Headers.ContainsKey("grpc-encoding"));
        Assert.Equal(0, request.Raw[0]);
        Assert.Equal((uint)s_body.Length, BinaryPrimitives.ReadUInt32BigEndian(request.Raw.AsSpan(1)));
        Assert.Equal(s_body, request.Message);
    }

    [Theory]
    [InlineData("?tenant=a")]
    [InlineData("/?tenant=a")]
    [InlineData("prefix?tenant=a")]
    [InlineData("a%20b?tenant=a")]
    public async Task AnEndpointWithAQueryGetsTheCallPathBeforeTheQuery(string pathAndQuery)
    {
        OtlpExportClient client = _clients.Grpc(new Uri(_receiver.BaseAddress, pathAndQuery));

        Assert.True(await client.ExportAsync(s_body, CancellationToken.None));

        FaultInjectedRequest request = Assert.Single(_receiver.Requests);
        string prefix = pathAndQuery.StartsWith("prefix", StringComparison.Ordinal) ? "/prefix"
            : pathAndQuery.StartsWith("a%20b", StringComparison.Ordinal) ? "/a%20b" // escaped once, as given
            : string.Empty;
        Assert.Equal(prefix + "/opentelemetry.proto.collector.metrics.v1.MetricsService/Export", request.Path);
        Assert.Equal("?tenant=a", request.Query);
    }

    [Fact]
    public async Task GzipSetsTheCompressedFlagAndGrpcEncoding()
    {
        byte[] body = [.. Enumerable.Range(0, 4096).Select(i => (byte)(i % 5))];
        OtlpExportClient client = _clients.Grpc(_receiver.BaseAddress, OtlpCompression.Gzip);

        Assert.True(await client.ExportAsync(body, CancellationToken.None));

        FaultInjectedRequest request = Assert.Single(_receiver.Requests);
        Assert.Equal("gzip", request.Headers["grpc-encoding"]);
        Assert.Equal(1, request.Raw[0]);
        Assert.Equal(body, request.Message);
    }

    [Theory]
    [InlineData(1)]
    [InlineData(4)]
    [InlineData(10)]
    [InlineData(11)]
    [InlineData(14)]
    [InlineData(15)]
    public async Task RetriesTheRetryableCodes(int code)
    {
        _receiver.Enqueue(new OtlpFault.Grpc(code, "try later"));
        OtlpExportClient client = _clients.Grpc(_receiver.BaseAddress);

        Assert.True(await client.ExportAsync(s_body, CancellationToken.None));

        Assert.Equal(2, _receiver.Requests.Count);
        Assert.Single(_clients.Delays);
    }

    [Fact]
    public async Task RefusesInvalidArgumentWithTheDecodedMessageOnce()
    {
        _receiver.Enqueue(new OtlpFault.Grpc(3, "bad metric: 100% wrong"), new OtlpFault.Grpc(3, "bad metric: 100% wrong"));
        OtlpExportClient client = _clients.Grpc(_receiver.BaseAddress);

        Assert.False(await client.ExportAsync(s_body, CancellationToken.None));
        Assert.False(await client.ExportAsync(s_body, CancellationToken.None));

        Assert.Equal(2, _receiver.Requests.Count);
        Assert.Empty(_clients.Delays);
        Assert.Contains("INVALID_ARGUMENT (3): bad metric: 100% wrong", Assert.Single(_clients.Warnings));
    }

    [Fact]
    public async Task ResourceExhaustedIsRetriedAfterItsRetryInfoOnly()
    {
        _receiver.Enqueue(new OtlpFault.Grpc(8, "slow down", TimeSpan.FromSeconds(3)), OtlpFault.Ok, new OtlpFault.Grpc(8, "quota gone"));
        OtlpExportClient client = _clients.Grpc(_receiver.BaseAddress);

        Assert.True(await client.ExportAsync(s_body, CancellationToken.None));
        Assert.False(await client.ExportAsync(s_body, CancellationToken.None));

        Assert.Equal(3, _receiver.Requests.Count);
        Assert.Equal([TimeSpan.FromSeconds(3)], _clients.Delays);
        Assert.Contains("RESOURCE_EXHAUSTED", Assert.Single(_clients.Warnings));
    }

    [Fact]
    public async Task APartialSuccessIsAcceptedAndLogged()
    {
        _receiver.Enqueue(new OtlpFault.PartialSuccess(4, "4 points out of order"));
        OtlpExportClient client = _clients.Grpc(_receiver.BaseAddress);

        Assert.True(await client.ExportAsync(s_body, CancellationToken.None));

        string warning = Assert.Single(_clients.Warnings);
        Assert.Contains("rejected 4 data point(s)", warning);
        Assert.Contains("4 points out of order", warning);
    }

    [Fact]
    public async Task AnAnswerWithoutAStatusIsRetried()
    {
        _receiver.Enqueue(new OtlpFault.CloseMidBody(200));
        OtlpExportClient client = _clients.Grpc(_receiver.BaseAddress);

        Assert.True(await client.ExportAsync(s_body, CancellationToken.None));

        Assert.Equal(2, _receiver.Requests.Count);
    }
}
