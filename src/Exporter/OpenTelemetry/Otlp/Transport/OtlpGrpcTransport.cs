using System.Buffers.Binary;
using System.Globalization;
using System.Net;
using System.Net.Http.Headers;

namespace ScalableMetrics.Exporter.OpenTelemetry.Otlp.Transport;

/// <summary>
/// OTLP/gRPC as the gRPC wire protocol (grpc/grpc <c>doc/PROTOCOL-HTTP2.md</c>) over HTTP/2 with the
/// same <see cref="HttpClient"/> as OTLP/HTTP: the <c>MetricsService/Export</c> call is one
/// length-prefixed message each way, its status in the <c>grpc-status</c>/<c>grpc-message</c> trailers.
/// </summary>
/// <remarks>
/// Not <c>Grpc.Net.Client</c>: for this one unary call it would add <c>Grpc.Net.Client</c>,
/// <c>Grpc.Net.Common</c> and <c>Grpc.Core.Api</c> to every user's dependencies, generated stubs
/// (and Grpc.Tools in the build), and a channel with its own handler beside the
/// <c>IHttpClientFactory</c> client that users configure (proxy, certificates). OpenTelemetry .NET's
/// OTLP exporter dropped it for the same framing over <see cref="HttpClient"/>. Retryable
/// codes follow the OTLP specification's "OTLP/gRPC Throttling" table; RESOURCE_EXHAUSTED only with a
/// <c>RetryInfo</c>, which says recovery is possible.
/// </remarks>
internal sealed class OtlpGrpcTransport(Func<HttpClient> client, Uri endpoint, OtlpCompression compression, IReadOnlyDictionary<string, string> headers, TimeSpan timeout) : IOtlpTransport
{
    private const string ExportPath = "opentelemetry.proto.collector.metrics.v1.MetricsService/Export";
    private const int PrefixLength = 5;
    private static readonly MediaTypeHeaderValue s_grpc = new("application/grpc");

    // The call's path after the endpoint's own, and before its query, which stays the endpoint's.
    private readonly Uri _callUri = new(endpoint.GetLeftPart(UriPartial.Path).TrimEnd('/') + "/" + ExportPath + endpoint.Query);

    public Uri Endpoint { get; } = endpoint;

    /// <summary>The message prefixed with its compressed flag and its big-endian length.</summary>
    public ReadOnlyMemory<byte> Prepare(ReadOnlyMemory<byte> request)
    {
        ReadOnlySpan<byte> message = compression == OtlpCompression.Gzip ? OtlpGzip.Compress(request.Span) : request.Span;
        byte[] frame = new byte[PrefixLength + message.Length];
        frame[0] = compression == OtlpCompression.Gzip ? (byte)1 : (byte)0;
        BinaryPrimitives.WriteUInt32BigEndian(frame.AsSpan(1), (uint)message.Length);
        message.CopyTo(frame.AsSpan(PrefixLength));
        return frame;
    }

    public async Task<OtlpAttempt> SendAsync(ReadOnlyMemory<byte> payload, CancellationToken cancellationToken)
    {
        var content = new ReadOnlyMemoryContent(payload);
        content.Headers.ContentType = s_grpc;
        using var request = new HttpRequestMessage(HttpMethod.Post, _callUri)
        {
            Content = content,

            // gRPC is HTTP/2 only; over http:// this is HTTP/2 with prior knowledge (h2c).
            Version = HttpVersion.Version20,
            VersionPolicy = HttpVersionPolicy.RequestVersionExact,
        };
        request.Headers.TE.Add(new TransferCodingWithQualityHeaderValue("trailers"));
        request.Headers.TryAddWithoutValidation("grpc-timeout", ((long)Math.Ceiling(timeout.TotalMilliseconds)).ToString(CultureInfo.InvariantCulture) + "m");
        if (compression == OtlpCompression.Gzip)
        {
            request.Headers.TryAddWithoutValidation("grpc-encoding", "gzip");
        }

        HttpClient http = client();
        OtlpHeaders.Add(request.Headers, headers, http);
        using HttpResponseMessage response = await http.SendAsync(request, HttpCompletionOption.ResponseHeadersRead, cancellationToken).ConfigureAwait(false);
        if (response.StatusCode != HttpStatusCode.OK)
        {
            // grpc/grpc doc/http-grpc-status-mapping.md: what a proxy's HTTP answer means as a gRPC code.
            int status = (int)response.StatusCode;
            return status is 429 or 502 or 503 or 504
                ? new OtlpAttempt(OtlpOutcome.Retryable, $"HTTP {status}", $"HTTP {status} (gRPC UNAVAILABLE)")
                : new OtlpAttempt(OtlpOutcome.Failed, $"HTTP {status}", $"HTTP {status} to a gRPC call");
        }

        (byte[] body, bool truncated, IOException? error) = await OtlpResponseBody.ReadAsync(response.Content, cancellationToken).ConfigureAwait(false);
        string? statusText = Header(response.TrailingHeaders, "grpc-status") ?? Header(response.Headers, "grpc-status");
        if (error is not null || statusText is null || !int.TryParse(statusText, NumberStyles.None, CultureInfo.InvariantCulture, out int code))
        {
            // No status: the call broke off, and whether the receiver has the data is unknown.
            return new OtlpAttempt(OtlpOutcome.Retryable, "broken response", $"the gRPC answer ended without a status ({error?.Message ?? "no grpc-status trailer"})") { Exception = error };
        }

        string message = Uri.UnescapeDataString(Header(response.TrailingHeaders, "grpc-message") ?? Header(response.Headers, "grpc-message") ?? string.Empty);
        if (code == 0)
        {
            return Accepted(response, body, truncated);
        }

        TimeSpan? retryDelay = RetryDelay(Header(response.TrailingHeaders, "grpc-status-details-bin") ?? Header(response.Headers, "grpc-status-details-bin"));
        string detail = $"gRPC {GrpcCodeName(code)} ({code}){(message.Length > 0 ? ": " + message : string.Empty)}";
        bool retryable = code is 1 or 4 or 10 or 11 or 14 or 15 || (code == 8 && retryDelay is not null);
        return new OtlpAttempt(retryable ? OtlpOutcome.Retryable : OtlpOutcome.Failed, "gRPC " + GrpcCodeName(code), detail) { RetryAfter = retryDelay };
    }

    private static OtlpAttempt Accepted(HttpResponseMessage response, byte[] body, bool truncated)
    {
        byte[]? message = truncated ? null : Message(body, Header(response.Headers, "grpc-encoding"));
        if (message is null)
        {
            return OtlpAttempt.Accepted with { Cause = "unreadable response", Detail = "gRPC OK with a message that could not be read; the data counts as accepted." };
        }

        return OtlpResponseReader.TryReadPartialSuccess(message, out long rejected, out string? error) && (rejected > 0 || !string.IsNullOrEmpty(error))
            ? OtlpAttempt.Accepted with { Cause = "partial success", Detail = error ?? string.Empty, RejectedDataPoints = rejected }
            : OtlpAttempt.Accepted;
    }

    // The response's one message, decompressed if its flag says so; an empty body is an empty message.
    private static byte[]? Message(byte[] body, string? encoding)
    {
        if (body.Length == 0)
        {
            return body;
        }

        if (body.Length < PrefixLength)
        {
            return null;
        }

        uint length = BinaryPrimitives.ReadUInt32BigEndian(body.AsSpan(1));
        if (length > body.Length - PrefixLength)
        {
            return null;
        }

        byte[] message = body[PrefixLength..(PrefixLength + (int)length)];
        return body[0] switch
        {
            0 => message,
            1 when encoding == "gzip" => OtlpGzip.Decompress(message, OtlpResponseBody.Limit),
            _ => null,
        };
    }

    private static TimeSpan? RetryDelay(string? statusDetails)
    {
        if (statusDetails is null)
        {
            return null;
        }

        // gRPC sends binary headers base64-encoded, padding often left off.
        string padded = statusDetails.Trim().PadRight(statusDetails.Length + ((4 - (statusDetails.Length % 4)) % 4), '=');
        try
        {
            return OtlpResponseReader.TryReadStatus(Convert.FromBase64String(padded), out _, out _, out TimeSpan? delay) ? delay : null;
        }
        catch (FormatException)
        {
            return null;
        }
    }

    private static string? Header(HttpHeaders headers, string name) =>
        headers.TryGetValues(name, out IEnumerable<string>? values) ? values.FirstOrDefault() : null;

    private static string GrpcCodeName(int code) => code switch
    {
        1 => "CANCELLED",
        2 => "UNKNOWN",
        3 => "INVALID_ARGUMENT",
        4 => "DEADLINE_EXCEEDED",
        5 => "NOT_FOUND",
        6 => "ALREADY_EXISTS",
        7 => "PERMISSION_DENIED",
        8 => "RESOURCE_EXHAUSTED",
        9 => "FAILED_PRECONDITION",
        10 => "ABORTED",
        11 => "OUT_OF_RANGE",
        12 => "UNIMPLEMENTED",
        13 => "INTERNAL",
        14 => "UNAVAILABLE",
        15 => "DATA_LOSS",
        16 => "UNAUTHENTICATED",
        _ => "code " + code.ToString(CultureInfo.InvariantCulture),
    };
}
