using Microsoft.AspNetCore.Http;

namespace ScalableMetrics.Exporter.Prometheus.Scraping;

/// <summary>
/// The ASP.NET Core endpoint's request handling (<c>MapScalableMetrics</c>): the
/// scrape's answer (<see cref="ScrapeAnswer"/>, the same the standalone <c>ScrapeListener</c>
/// gives) written to an <see cref="HttpResponse"/>.
/// </summary>
internal static class ScrapeEndpoint
{
    /// <summary>Answers one scrape request.</summary>
    /// <param name="scraper">The scraper.</param>
    /// <param name="defaultTimeout">The scrape's timeout where the request does not say one.</param>
    /// <param name="stopping">Canceled when the application stops: a scrape waiting then is answered 503.</param>
    /// <param name="context">The request.</param>
    public static async Task HandleAsync(PrometheusScraper scraper, TimeSpan defaultTimeout, CancellationToken stopping, HttpContext context)
    {
        HttpRequest request = context.Request;
        using ScrapeAnswer? answer = await ScrapeAnswer.ScrapeAsync(
            scraper,
            request.Headers.Accept.ToString(),
            request.Headers.AcceptEncoding.ToString(),
            request.Headers[ScrapeTimeoutHeader.Name],
            defaultTimeout,
            stopping,
            context.RequestAborted).ConfigureAwait(false);
        if (answer is null)
        {
            return;
        }

        HttpResponse response = context.Response;
        response.StatusCode = answer.StatusCode;
        if (!answer.HasBody)
        {
            return;
        }

        response.ContentType = answer.ContentType;
        response.Headers.Vary = ScrapeAnswer.Vary;
        if (answer.Gzip)
        {
            response.Headers.ContentEncoding = "gzip";
        }

        ReadOnlyMemory<byte> body = await answer.EncodedBodyAsync().ConfigureAwait(false);
        response.ContentLength = body.Length;
        await ScrapeAnswer.WriteAsync(response.Body, body, context.RequestAborted).ConfigureAwait(false);
    }
}
