using System.Buffers.Binary;
using System.Collections.Concurrent;
using System.IO.Compression;
using System.Net;
using Google.Protobuf;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Hosting;
using Microsoft.AspNetCore.Hosting.Server;
using Microsoft.AspNetCore.Hosting.Server.Features;
using Microsoft.AspNetCore.Http;
using Microsoft.AspNetCore.Http.Features;
using Microsoft.AspNetCore.Server.Kestrel.Core;
using Microsoft.Extensions.DependencyInjection;

namespace ScalableMetrics.Exporter.Tests.OpenTelemetry.Otlp.Transport;

/// <summary>
/// An OTLP receiver in-process (Kestrel on 127.0.0.1, an ephemeral port) that keeps every request
/// and answers each with the next queued <see cref="OtlpFault"/>, OK once the queue is empty. Over
/// HTTP/2 (cleartext, prior knowledge) for gRPC, HTTP/1.1 otherwise. Answers at most
/// <see cref="MaxRequests"/> requests, then 500, so a runaway exporter cannot loop forever.
/// </summary>
internal sealed class FaultInjectingOtlpReceiver : IAsyncDisposable
{
    public const int MaxRequests = 200;

    private readonly WebApplication _app;
    private readonly ConcurrentQueue<OtlpFault> _faults = new();
    private readonly List<FaultInjectedRequest> _requests = [];
    private readonly SemaphoreSlim _arrived = new(0);
    private int _inFlight;
    private int _maxInFlight;

    private FaultInjectingOtlpReceiver(WebApplication app) => _app = app;

    public Uri BaseAddress { get; private set; } = null!;

    /// <summary>
    /// Where set, a request whose <c>ExportMetricsServiceRequest</c> is larger is refused as the
    /// OpenTelemetry Collector refuses it (gRPC <c>RESOURCE_EXHAUSTED</c>, "received message larger
    /// than max"; HTTP 413), whatever fault is queued.
    /// </summary>
    public int? MaxMessageBytes { get; set; }

    /// <summary>The most requests it was answering at once.</summary>
    public int MaxInFlight => Volatile.Read(ref _maxInFlight);

    public IReadOnlyList<FaultInjectedRequest> Requests
    {
        get
        {
            lock (_requests)
            {
                return [.. _requests];
            }
        }
    }

    /// <summary>Starts a receiver; over TLS with <paramref name="tls"/>'s server certificate where given, and then,
    /// with <paramref name="requireClientCertificate"/>, only for a client certificate of that authority.</summary>
    public static async Task<FaultInjectingOtlpReceiver> StartAsync(bool http2 = false, TestCertificates? tls = null, bool requireClientCertificate = false)
    {
        WebApplicationBuilder builder = WebApplication.CreateEmptyBuilder(new WebApplicationOptions());
        builder.WebHost.UseKestrelCore().ConfigureKestrel(kestrel =>
            kestrel.Listen(IPAddress.Loopback, 0, listen =>
            {
                listen.Protocols = http2 ? HttpProtocols.Http2 : HttpProtocols.Http1;
                if (tls is not null)
                {
                    listen.UseHttps(https =>
                    {
                        https.ServerCertificate = tls.Server;
                        if (requireClientCertificate)
                        {
                            https.ClientCertificateMode = Microsoft.AspNetCore.Server.Kestrel.Https.ClientCertificateMode.RequireCertificate;
                            https.ClientCertificateValidation = (certificate, _, _) => tls.Trusts(certificate);
                        }
                    });
                }
            }));
        WebApplication app = builder.Build();
        var receiver = new FaultInjectingOtlpReceiver(app);
        app.Run(receiver.HandleAsync);
        await app.StartAsync();
        receiver.BaseAddress = new Uri(app.Services.GetRequiredService<IServer>().Features.GetRequiredFeature<IServerAddressesFeature>().Addresses.Single());
        return receiver;
    }

    public Uri Url(string path) => new(BaseAddress, path);

    public void Enqueue(params OtlpFault[] faults)
    {
        foreach (OtlpFault fault in faults)
        {
            _faults.Enqueue(fault);
        }
    }

    /// <summary>Waits until <paramref name="count"/> requests have arrived in all; false after a minute without.</summary>
    public async Task<bool> WaitForRequestsAsync(int count)
    {
        while (Requests.Count < count)
        {
            if (!await _arrived.WaitAsync(TimeSpan.FromMinutes(1)))
            {
                return false;
            }
        }

        return true;
    }

    public async ValueTask DisposeAsync()
    {
        await _app.StopAsync();
        await _app.DisposeAsync();
        _arrived.Dispose();
    }

    private async Task HandleAsync(HttpContext context)
    {
        int inFlight = Interlocked.Increment(ref _inFlight);
        InterlockedMax(ref _maxInFlight, inFlight);
        try
        {
            using var buffer = new MemoryStream();
            await context.Request.Body.CopyToAsync(buffer, context.RequestAborted);
            byte[] raw = buffer.ToArray();
            bool grpc = context.Request.ContentType == "application/grpc";
            var headers = context.Request.Headers.ToDictionary(h => h.Key.ToLowerInvariant(), h => h.Value.ToString());
            var request = new FaultInjectedRequest(context.Request.Protocol, context.Request.Path, headers, raw, Decode(raw, grpc, headers), context.Request.QueryString.Value ?? string.Empty);
            int count;
            lock (_requests)
            {
                _requests.Add(request);
                count = _requests.Count;
            }

            _arrived.Release();

            OtlpFault fault = count > MaxRequests ? new OtlpFault.Answer(500, "too many requests in one test")
                : request.Message.Length > MaxMessageBytes ? (grpc ? new OtlpFault.Grpc(8, $"grpc: received message larger than max ({request.Message.Length} vs. {MaxMessageBytes})") : new OtlpFault.Answer(413, "request body too large"))
                : _faults.TryDequeue(out OtlpFault? next) ? next : OtlpFault.Ok;
            await AnswerAsync(context, fault, grpc);
        }
        finally
        {
            Interlocked.Decrement(ref _inFlight);
        }
    }

    private static async Task AnswerAsync(HttpContext context, OtlpFault fault, bool grpc)
    {
        switch (fault)
        {
            case OtlpFault.Slow slow:
                try
                {
                    await Task.Delay(slow.Delay, context.RequestAborted);
                }
                catch (OperationCanceledException)
                {
                    return;
                }

                await AnswerAsync(context, OtlpFault.Ok, grpc);
                return;
            case OtlpFault.HugeBody huge:
                context.Response.ContentType = "application/x-protobuf";
                byte[] chunk = new byte[64 * 1024];
                try
                {
                    for (int sent = 0; sent < huge.Bytes; sent += chunk.Length)
                    {
                        await context.Response.Body.WriteAsync(chunk.AsMemory(0, Math.Min(chunk.Length, huge.Bytes - sent)), context.RequestAborted);
                    }
                }
                catch (Exception e) when (e is OperationCanceledException or IOException)
                {
                    // The client stopped reading, as it should.
                }

                return;
            case OtlpFault.CloseWithoutAnswer:
                context.Abort();
                return;
            case OtlpFault.CloseMidBody close:
                context.Response.StatusCode = close.Code;
                context.Response.ContentType = grpc ? "application/grpc" : "application/x-protobuf";
                context.Response.ContentLength = 100;
                await context.Response.Body.WriteAsync(new byte[10]);
                await context.Response.Body.FlushAsync();

                // Closing at once could reset the connection before the client read the headers
                // (a reset discards what it had not read): give it the time to read them first.
                await Task.Delay(200);
                context.Abort();
                return;
            case OtlpFault.PartialSuccess accepted when grpc:
                await GrpcAnswerAsync(context, 0, string.Empty, PartialSuccess(accepted), null);
                return;
            case OtlpFault.PartialSuccess someAccepted:
                context.Response.ContentType = "application/x-protobuf";
                await context.Response.Body.WriteAsync(PartialSuccess(someAccepted));
                return;
            case OtlpFault.Grpc status:
                await GrpcAnswerAsync(context, status.Code, status.Message, [], status.RetryDelay);
                return;
            case OtlpFault.Answer { Code: 200 } when grpc:
                await GrpcAnswerAsync(context, 0, string.Empty, [], null);
                return;
            case OtlpFault.Answer answer:
                context.Response.StatusCode = answer.Code;
                if (answer.RetryAfter is TimeSpan retryAfter)
                {
                    context.Response.Headers.RetryAfter = answer.RetryAfterAsDate
                        ? (DateTimeOffset.UtcNow + retryAfter).ToString("R")
                        : ((long)retryAfter.TotalSeconds).ToString(System.Globalization.CultureInfo.InvariantCulture);
                }

                context.Response.ContentType = "application/x-protobuf";
                if (answer.Code != 200)
                {
                    await context.Response.Body.WriteAsync(Status(answer.Code == 429 ? 8 : 3, answer.Message, null));
                }

                return;
        }
    }

    private static async Task GrpcAnswerAsync(HttpContext context, int code, string message, byte[] response, TimeSpan? retryDelay)
    {
        context.Response.ContentType = "application/grpc";
        if (code == 0)
        {
            byte[] frame = new byte[5 + response.Length];
            BinaryPrimitives.WriteUInt32BigEndian(frame.AsSpan(1), (uint)response.Length);
            response.CopyTo(frame, 5);
            await context.Response.Body.WriteAsync(frame);
        }

        context.Response.AppendTrailer("grpc-status", code.ToString(System.Globalization.CultureInfo.InvariantCulture));
        if (message.Length > 0)
        {
            context.Response.AppendTrailer("grpc-message", Uri.EscapeDataString(message));
        }

        if (retryDelay is TimeSpan delay)
        {
            context.Response.AppendTrailer("grpc-status-details-bin", Convert.ToBase64String(Status(code, message, delay)).TrimEnd('='));
        }
    }

    private static byte[] Decode(byte[] raw, bool grpc, Dictionary<string, string> headers)
    {
        if (grpc)
        {
            if (raw.Length < 5 || BinaryPrimitives.ReadUInt32BigEndian(raw.AsSpan(1)) != raw.Length - 5)
            {
                throw new InvalidDataException("The gRPC message is not one length-prefixed frame.");
            }

            byte[] message = raw[5..];
            return raw[0] == 1 ? Gunzip(message) : message;
        }

        return headers.GetValueOrDefault("content-encoding") == "gzip" ? Gunzip(raw) : raw;
    }

    private static byte[] Gunzip(byte[] data)
    {
        using var gzip = new GZipStream(new MemoryStream(data), CompressionMode.Decompress);
        using var output = new MemoryStream();
        gzip.CopyTo(output);
        return output.ToArray();
    }

    // ExportMetricsServiceResponse { ExportMetricsPartialSuccess partial_success = 1 { int64 rejected_data_points = 1; string error_message = 2; } }
    private static byte[] PartialSuccess(OtlpFault.PartialSuccess answer)
    {
        byte[] inner = Message(output =>
        {
            output.WriteTag(1, WireFormat.WireType.Varint);
            output.WriteInt64(answer.Rejected);
            output.WriteTag(2, WireFormat.WireType.LengthDelimited);
            output.WriteString(answer.Message);
        });
        return Message(output =>
        {
            output.WriteTag(1, WireFormat.WireType.LengthDelimited);
            output.WriteBytes(ByteString.CopyFrom(inner));
        });
    }

    // google.rpc.Status { int32 code = 1; string message = 2; repeated Any details = 3 }, a RetryInfo detail.
    private static byte[] Status(int code, string message, TimeSpan? retryDelay) => Message(output =>
    {
        output.WriteTag(1, WireFormat.WireType.Varint);
        output.WriteInt32(code);
        output.WriteTag(2, WireFormat.WireType.LengthDelimited);
        output.WriteString(message);
        if (retryDelay is TimeSpan delay)
        {
            byte[] duration = Message(o =>
            {
                o.WriteTag(1, WireFormat.WireType.Varint);
                o.WriteInt64((long)delay.TotalSeconds);
            });
            byte[] retryInfo = Message(o =>
            {
                o.WriteTag(1, WireFormat.WireType.LengthDelimited);
                o.WriteBytes(ByteString.CopyFrom(duration));
            });
            byte[] any = Message(o =>
            {
                o.WriteTag(1, WireFormat.WireType.LengthDelimited);
                o.WriteString("type.googleapis.com/google.rpc.RetryInfo");
                o.WriteTag(2, WireFormat.WireType.LengthDelimited);
                o.WriteBytes(ByteString.CopyFrom(retryInfo));
            });
            output.WriteTag(3, WireFormat.WireType.LengthDelimited);
            output.WriteBytes(ByteString.CopyFrom(any));
        }
    });

    private static byte[] Message(Action<CodedOutputStream> write)
    {
        using var stream = new MemoryStream();
        using (var output = new CodedOutputStream(stream, leaveOpen: true))
        {
            write(output);
        }

        return stream.ToArray();
    }

    private static void InterlockedMax(ref int target, int value)
    {
        int current;
        while ((current = Volatile.Read(ref target)) < value && Interlocked.CompareExchange(ref target, value, current) != current)
        {
        }
    }
}
