using System.Net.Http.Headers;

namespace ScalableMetrics.Exporter.OpenTelemetry.Otlp.Transport;

/// <summary>
/// OTLP/HTTP with a binary protobuf body, after the OTLP specification's "OTLP/HTTP" section:
/// <c>POST</c> with <c>Content-Type: application/x-protobuf</c> (and <c>Content-Encoding: gzip</c>),
/// 2xx with an <c>ExportMetricsServiceResponse</c> that may carry a partial success, 429/502/503/504
/// retryable (after <c>Retry-After</c> when sent), other codes refused with a <c>google.rpc.Status</c>.
/// Thread-safe (one attempt at a time is the caller's rule, but nothing here is shared).
/// </summary>
internal sealed class OtlpHttpTransport(Func<HttpClient> client, Uri endpoint, OtlpCompression compression, IReadOnlyDictionary<string, string> headers, TimeProvider time) : IOtlpTransport
{
    private static readonly MediaTypeHeaderValue s_protobuf = new("application/x-protobuf");

    public Uri Endpoint { get; } = endpoint;

    public ReadOnlyMemory<byte> Prepare(ReadOnlyMemory<byte> request) =>
        compression == OtlpCompression.Gzip ? OtlpGzip.Compress(request.Span) : request;

    public async Task<OtlpAttempt> SendAsync(ReadOnlyMemory<byte> payload, CancellationToken cancellationToken)
    {
        var content = new ReadOnlyMemoryContent(payload);
        content.Headers.ContentType = s_protobuf;
        if (compression == OtlpCompression.Gzip)
        {
            content.Headers.ContentEncoding.Add("gzip");
        }

        using var request = new HttpRequestMessage(HttpMethod.Post, Endpoint) { Content = content };
        HttpClient http = client();
        OtlpHeaders.Add(request.Headers, headers, http);
        using HttpResponseMessage response = await http.SendAsync(request, HttpCompletionOption.ResponseHeadersRead, cancellationToken).ConfigureAwait(false);
        (byte[] body, bool truncated, IOException? error) = await OtlpResponseBody.ReadAsync(response.Content, cancellationToken).ConfigureAwait(false);
        int status = (int)response.StatusCode;
        if (response.IsSuccessStatusCode)
        {
            // The receiver has the data once it answered 2xx: an unreadable body does not undo that.
            if (error is not null || truncated)
            {
                return OtlpAttempt.Accepted with { Cause = "unreadable response", Detail = $"HTTP {status} with a body that could not be read ({error?.Message ?? "over 64 KiB"}); the data counts as accepted.", Exception = error };
            }

            return OtlpResponseReader.TryReadPartialSuccess(body, out long rejected, out string? message) && (rejected > 0 || !string.IsNullOrEmpty(message))
                ? OtlpAttempt.Accepted with { Cause = "partial success", Detail = message ?? string.Empty, RejectedDataPoints = rejected }
                : OtlpAttempt.Accepted;
        }

        string detail = $"HTTP {status}{Describe(response, body, error)}";
        return status is 429 or 502 or 503 or 504
            ? new OtlpAttempt(OtlpOutcome.Retryable, $"HTTP {status}", detail) { RetryAfter = RetryAfter(response.Headers.RetryAfter), Exception = error }
            : new OtlpAttempt(OtlpOutcome.Failed, $"HTTP {status}", detail) { Exception = error };
    }

    private TimeSpan? RetryAfter(RetryConditionHeaderValue? retryAfter)
    {
        if (retryAfter?.Delta is TimeSpan delta)
        {
            return delta < TimeSpan.Zero ? TimeSpan.Zero : delta;
        }

        if (retryAfter?.Date is DateTimeOffset date)
        {
            TimeSpan wait = date - time.GetUtcNow();
            return wait < TimeSpan.Zero ? TimeSpan.Zero : wait;
        }

        return null;
    }

    // The receiver's own words: a google.rpc.Status's message, else the start of a text body.
    private static string Describe(HttpResponseMessage response, byte[] body, IOException? error)
    {
        if (error is not null)
        {
            return $" and a body broken off ({error.Message})";
        }

        if (body.Length == 0)
        {
            return string.Empty;
        }

        if (response.Content.Headers.ContentType?.MediaType == "application/x-protobuf"
            && OtlpResponseReader.TryReadStatus(body, out _, out string? message, out _)
            && !string.IsNullOrEmpty(message))
        {
            return ": " + message;
        }

        return response.Content.Headers.ContentType?.MediaType?.StartsWith("text/", StringComparison.Ordinal) == true
            ? ": " + System.Text.Encoding.UTF8.GetString(body, 0, Math.Min(body.Length, 512)).ReplaceLineEndings(" ")
            : string.Empty;
    }
}
