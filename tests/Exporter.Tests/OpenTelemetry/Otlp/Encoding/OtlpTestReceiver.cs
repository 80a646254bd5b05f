using System.Collections.Concurrent;
using System.IO.Compression;
using Google.Protobuf;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Hosting;
using Microsoft.AspNetCore.Http;
using Microsoft.Extensions.Logging;
using OpenTelemetry.Proto.Collector.Metrics.V1;

namespace ScalableMetrics.Exporter.Tests.OpenTelemetry.Otlp.Encoding;

/// <summary>
/// An OTLP/HTTP metrics receiver for tests: Kestrel on 127.0.0.1 at an ephemeral port, which keeps
/// every request posted to <c>/v1/metrics</c> (its body un-gzipped where the request says gzip) and
/// answers as <see cref="Answer"/> says, by default 200 with an empty <c>ExportMetricsServiceResponse</c>.
/// </summary>
/// <remarks>Both our exporter and OpenTelemetry's own (the oracle) send to it, so the tests compare
/// what one receiver took. Thread-safe.</remarks>
public sealed class OtlpTestReceiver : IAsyncDisposable
{
    private readonly WebApplication _app;
    private readonly ConcurrentQueue<OtlpReceivedRequest> _requests = new();

    private OtlpTestReceiver(WebApplication app)
    {
        _app = app;
    }

    /// <summary>The server's base address, <c>http://127.0.0.1:port/</c>.</summary>
    public Uri BaseAddress { get; private set; } = null!;

    /// <summary>The metrics endpoint, <c>http://127.0.0.1:port/v1/metrics</c>.</summary>
    public Uri MetricsEndpoint => new(BaseAddress, "v1/metrics");

    /// <summary>
    /// Answers a request after it was kept: sets the status, headers and body. Null (the default)
    /// answers 200 with an empty <c>ExportMetricsServiceResponse</c> in protobuf.
    /// </summary>
    public Func<HttpContext, OtlpReceivedRequest, Task>? Answer { get; set; }

    /// <summary>Every request received so far, in arrival order.</summary>
    public IReadOnlyList<OtlpReceivedRequest> Requests => [.. _requests];

    /// <summary>Starts a receiver.</summary>
    public static async Task<OtlpTestReceiver> StartAsync()
    {
        WebApplicationBuilder builder = WebApplication.CreateSlimBuilder();
        builder.WebHost.UseUrls("http://127.0.0.1:0");
        builder.Logging.ClearProviders();
        WebApplication app = builder.Build();
        var receiver = new OtlpTestReceiver(app);
        app.MapPost("/v1/metrics", receiver.ReceiveAsync);
        await app.StartAsync();
        receiver.BaseAddress = new Uri(Assert.Single(app.Urls) + "/");
        return receiver;
    }

    /// <summary>Every request's body decoded as an <c>ExportMetricsServiceRequest</c> (the classes generated from opentelemetry-proto).</summary>
    public IReadOnlyList<ExportMetricsServiceRequest> DecodedRequests() =>
        [.. Requests.Select(static request => ExportMetricsServiceRequest.Parser.ParseFrom(request.Body))];

    /// <inheritdoc/>
    public async ValueTask DisposeAsync() => await _app.DisposeAsync();

    private async Task ReceiveAsync(HttpContext context)
    {
        using var body = new MemoryStream();
        Stream input = context.Request.Body;
        bool gzip = string.Equals(context.Request.Headers.ContentEncoding, "gzip", StringComparison.OrdinalIgnoreCase);
        if (gzip)
        {
            input = new GZipStream(input, CompressionMode.Decompress);
        }

        await input.CopyToAsync(body, context.RequestAborted);
        var request = new OtlpReceivedRequest(
            body.ToArray(),
            context.Request.ContentType,
            context.Request.Headers.ToDictionary(static h => h.Key, static h => h.Value.ToString(), StringComparer.OrdinalIgnoreCase),
            gzip);
        _requests.Enqueue(request);
        if (Answer is { } answer)
        {
            await answer(context, request);
            return;
        }

        context.Response.ContentType = "application/x-protobuf";
        await context.Response.Body.WriteAsync(new ExportMetricsServiceResponse().ToByteArray(), context.RequestAborted);
    }
}
