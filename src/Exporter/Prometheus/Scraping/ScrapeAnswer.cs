using System.IO.Compression;
using System.Net;

namespace ScalableMetrics.Exporter.Prometheus.Scraping;

/// <summary>
/// The answer to a scrape request, the same whichever server took it (the ASP.NET Core endpoint
/// or the standalone listener): its status and, for 200, the body, its content type and whether
/// to gzip it.
/// </summary>
/// <param name="StatusCode">200; 503 when the scrape timed out, or the application stops, or the scraper is disposed; 500 when the collection failed.</param>
/// <param name="Body">The shared scrape body (write it, never change it); null unless 200.</param>
/// <param name="ContentType">The format's content type; null unless 200.</param>
/// <param name="Gzip">Whether the body goes out gzip-compressed (<c>Content-Encoding: gzip</c>).</param>
internal sealed record ScrapeAnswer(int StatusCode, byte[]? Body = null, string? ContentType = null, bool Gzip = false)
{
    /// <summary>The headers a 200 varies by.</summary>
    public const string Vary = "Accept, Accept-Encoding";

    private static readonly ScrapeAnswer s_unavailable = new((int)HttpStatusCode.ServiceUnavailable);
    private static readonly ScrapeAnswer s_failed = new((int)HttpStatusCode.InternalServerError);

    /// <summary>
    /// Scrapes <paramref name="scraper"/> for a request with these headers: the format by
    /// <c>Accept</c>, gzip by <c>Accept-Encoding</c>, the timeout by
    /// <c>X-Prometheus-Scrape-Timeout-Seconds</c> (else <paramref name="defaultTimeout"/>).
    /// </summary>
    /// <returns>The answer; null where the client hung up (nobody to answer).</returns>
    public static async Task<ScrapeAnswer?> ScrapeAsync(
        PrometheusScraper scraper,
        string? accept,
        string? acceptEncoding,
        string? timeoutHeader,
        TimeSpan defaultTimeout,
        CancellationToken stopping,
        CancellationToken requestAborted)
    {
        if (stopping.IsCancellationRequested)
        {
            return s_unavailable;
        }

        PrometheusExpositionFormat format = ScrapeNegotiation.Format(accept);
        TimeSpan timeout = ScrapeTimeoutHeader.Parse(timeoutHeader, defaultTimeout);
        using CancellationTokenSource wait = CancellationTokenSource.CreateLinkedTokenSource(requestAborted, stopping);
        try
        {
            byte[] body = await scraper.ScrapeSharedAsync(format, timeout, wait.Token).ConfigureAwait(false);
            return new ScrapeAnswer((int)HttpStatusCode.OK, body, PrometheusScraper.ContentTypeOf(format), ScrapeNegotiation.AcceptsGzip(acceptEncoding));
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
        catch (InvalidOperationException)
        {
            return s_failed;
        }
    }

    /// <summary>Writes <see cref="Body"/> to <paramref name="output"/>, gzip-compressed where <see cref="Gzip"/>.</summary>
    /// <remarks>A <see cref="GZipStream"/> over the body the scrape already holds, not ASP.NET Core's
    /// response compression: no middleware for the application to order, and Fastest, which costs the
    /// same as the middleware's gzip (perf/results, issue 12).</remarks>
    public async Task WriteBodyAsync(Stream output, CancellationToken cancellationToken)
    {
        if (!Gzip)
        {
            await output.WriteAsync(Body, cancellationToken).ConfigureAwait(false);
            return;
        }

        var gzip = new GZipStream(output, CompressionLevel.Fastest, leaveOpen: true);
        await using (gzip.ConfigureAwait(false))
        {
            await gzip.WriteAsync(Body, cancellationToken).ConfigureAwait(false);
        }
    }
}
