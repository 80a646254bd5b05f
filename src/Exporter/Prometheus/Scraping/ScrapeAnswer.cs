using System.Net;
using ScalableMetrics.Exporter.Prometheus.Exposition;
using ScalableMetrics.Naming;

namespace ScalableMetrics.Exporter.Prometheus.Scraping;

/// <summary>
/// The answer to a scrape request, the same whichever server took it (the ASP.NET Core endpoint
/// or the standalone listener): its status and, for 200, the body, its content type and whether
/// to gzip it.
/// </summary>
/// <remarks>A 200 holds its collection's body (<see cref="ScrapeBodyLease"/>), shared with the
/// scrapes that joined the same collection, until it is disposed: dispose it once the response is
/// written, so that the buffer can serve a later collection.</remarks>
internal sealed class ScrapeAnswer : IDisposable
{
    /// <summary>The headers a 200 varies by.</summary>
    public const string Vary = "Accept, Accept-Encoding";

    private static readonly ScrapeAnswer s_unavailable = new((int)HttpStatusCode.ServiceUnavailable);
    private static readonly ScrapeAnswer s_failed = new((int)HttpStatusCode.InternalServerError);

    private readonly ScrapeBodyLease? _body;

    private ScrapeAnswer(int statusCode, ScrapeBodyLease? body = null, string? contentType = null, bool gzip = false)
    {
        StatusCode = statusCode;
        _body = body;
        ContentType = contentType;
        Gzip = gzip;
    }

    /// <summary>200; 503 when the scrape timed out, or the application stops, or the scraper is disposed; 500 when the collection failed.</summary>
    public int StatusCode { get; }

    /// <summary>Whether there is a body to write: a 200.</summary>
    public bool HasBody => _body is not null;

    /// <summary>The shared scrape body (write it, never change it, and not after <see cref="Dispose"/>); empty unless 200.</summary>
    public ReadOnlyMemory<byte> Body => _body?.Body ?? ReadOnlyMemory<byte>.Empty;

    /// <summary>The format's content type, naming the escaping applied (<see cref="ScrapeNegotiation.Negotiate(string?, PrometheusNameTranslation)"/>); null unless 200.</summary>
    public string? ContentType { get; }

    /// <summary>Whether the body goes out gzip-compressed (<c>Content-Encoding: gzip</c>).</summary>
    public bool Gzip { get; }

    /// <summary>
    /// Scrapes <paramref name="scraper"/> for a request with these headers: the format by
    /// <c>Accept</c>, gzip by <c>Accept-Encoding</c>, the timeout by
    /// <c>X-Prometheus-Scrape-Timeout-Seconds</c> (else <paramref name="defaultTimeout"/>).
    /// </summary>
    /// <returns>The answer, to dispose once written; null where the client hung up (nobody to answer).</returns>
    public static Task<ScrapeAnswer?> ScrapeAsync(
        PrometheusScraper scraper,
        string? accept,
        string? acceptEncoding,
        string? timeoutHeader,
        TimeSpan defaultTimeout,
        CancellationToken stopping,
        CancellationToken requestAborted) =>
        ScrapeAsync(scraper, accept, acceptEncoding, timeoutHeader, defaultTimeout, filter: null, stopping, requestAborted);

    /// <summary>As the overload without <paramref name="filter"/>: only the families it names (the URL's <c>name[]=</c>), null for all.</summary>
    /// <returns>The answer, to dispose once written; null where the client hung up (nobody to answer).</returns>
    public static async Task<ScrapeAnswer?> ScrapeAsync(
        PrometheusScraper scraper,
        string? accept,
        string? acceptEncoding,
        string? timeoutHeader,
        TimeSpan defaultTimeout,
        ScrapeNameFilter? filter,
        CancellationToken stopping,
        CancellationToken requestAborted)
    {
        if (stopping.IsCancellationRequested)
        {
            return s_unavailable;
        }

        (ExpositionFormat format, EscapingScheme escaping, string contentType) = ScrapeNegotiation.Negotiate(accept, scraper.NameTranslation);
        TimeSpan timeout = ScrapeTimeoutHeader.Parse(timeoutHeader, defaultTimeout);
        using CancellationTokenSource wait = CancellationTokenSource.CreateLinkedTokenSource(requestAborted, stopping);
        try
        {
            ScrapeBodyLease body = await scraper.LeaseAsync(format, escaping, filter, timeout, wait.Token).ConfigureAwait(false);
            return new ScrapeAnswer((int)HttpStatusCode.OK, body, contentType, ScrapeNegotiation.AcceptsGzip(acceptEncoding));
        }
        catch (Exception exception) when (exception is TimeoutException or ObjectDisposedException
            || (exception is OperationCanceledException && stopping.IsCancellationRequested))
        {
            return s_unavailable;
        }
        catch (OperationCanceledException) when (requestAborted.IsCancellationRequested)
        {
            return null;
        }
        catch (InvalidOperationException exception)
        {
            scraper.CollectionFailed(exception);
            return s_failed;
        }
    }

    /// <summary>
    /// The bytes the response sends: <see cref="Body"/>, or where <see cref="Gzip"/> its gzip
    /// compression, compressed once per collection and shared by its scrapes that ask for gzip;
    /// whole before a byte is sent, so that every response, compressed or not, carries a
    /// <c>Content-Length</c> rather than being chunked. Write it, never change it, and not after <see cref="Dispose"/>.
    /// </summary>
    /// <remarks>Compressed here, not by ASP.NET Core's response compression: no middleware for the
    /// application to order; Fastest, which costs the same as the middleware's gzip (perf/results,
    /// issue 12); and once per collection, not once per scrape. Waited for to its end, not
    /// canceled: the compression writes into the collection's buffer.</remarks>
    public async ValueTask<ReadOnlyMemory<byte>> EncodedBodyAsync()
    {
        if (_body is null)
        {
            return ReadOnlyMemory<byte>.Empty;
        }

        return Gzip ? await _body.GzipBodyAsync().ConfigureAwait(false) : _body.Body;
    }

    /// <summary>Lets go of the body, if any: its buffer may then serve a later collection. Idempotent.</summary>
    public void Dispose() => _body?.Dispose();
}
