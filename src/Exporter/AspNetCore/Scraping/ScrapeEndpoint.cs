using System.IO.Pipelines;
using Microsoft.AspNetCore.Http;
using Microsoft.AspNetCore.Server.Kestrel.Core;
using Microsoft.AspNetCore.Server.Kestrel.Core.Features;

namespace ScalableMetrics.Exporter.Prometheus.Scraping;

/// <summary>
/// The ASP.NET Core endpoint's request handling (<c>MapScalableMetrics</c>): the
/// scrape's answer (<see cref="ScrapeAnswer"/>, the same the standalone <c>ScrapeListener</c>
/// gives) written to an <see cref="HttpResponse"/>.
/// </summary>
internal static class ScrapeEndpoint
{
    /// <summary>The query parameter that names the families a scrape asks for, as client_golang and client_java read it: <c>?name[]=a&amp;name[]=b</c>.</summary>
    public const string ScrapeNameFilterParameter = "name[]";

    /// <summary>Answers one scrape request, <c>GET</c> or <c>HEAD</c> (the same headers, no body).</summary>
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
            NameFilterOf(request),
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
        if (HttpMethods.IsHead(request.Method))
        {
            // RFC 9110 §9.3.2: HEAD is answered as GET is, headers and Content-Length, without the body.
            return;
        }

        await WriteBodyAsync(context, body).ConfigureAwait(false);
    }

    // A scrape without a query string (Prometheus' own) has no filter: its request's query
    // collection is never parsed, nor the filter's names looked for in it.
    private static ScrapeNameFilter? NameFilterOf(HttpRequest request) =>
        request.QueryString.HasValue && request.Query[ScrapeNameFilterParameter] is { Count: > 0 } names ? ScrapeNameFilter.Of(names) : null;

    /// <summary>
    /// Writes <paramref name="body"/>, whose length the response's <c>Content-Length</c> already
    /// says, in one piece: under Kestrel's HTTP/1.x, copied once into memory the response's body
    /// writer lends for the whole body (Kestrel's output pipe, or the writer of a middleware that
    /// replaced the body); elsewhere (HTTP/2, HTTP/3, servers other than Kestrel, which offer no
    /// <see cref="IHttpMinResponseDataRateFeature"/>), one write to the response's stream.
    /// </summary>
    /// <remarks>
    /// <para>Why not <c>Response.Body.WriteAsync</c> under Kestrel's HTTP/1.x: it copies the body
    /// into its output pipe 4 KiB block at a time, taking the connection's lock and one of its pool's
    /// blocks for each, while the socket sender drains the same pipe on another core; for a body of
    /// megabytes that was most of the response's cost that was not the kernel's (perf/results,
    /// "The response in one piece"). Asked for memory the size of the body once the headers are
    /// written (<see cref="HttpResponse.StartAsync"/>; before, Kestrel lends memory of its own and
    /// copies it again), the pipe lends one array of that size, and the body is one copy.</para>
    /// <para>Kestrel counts the bytes of a write, not those of memory it lent, against the minimum
    /// response data rate (<see cref="KestrelServerLimits.MinResponseDataRate"/>): a flush of lent
    /// memory gets the grace period alone, so a client slower than the body's length over the grace
    /// period (5 s by default) would be cut off. This response's rate therefore gets the grace
    /// period Kestrel gives a write of the body's length: the body's length at the minimum rate,
    /// or the configured grace period where that is longer; the same limit as the one write.</para>
    /// <para>One write rather than slices with a flush after each: written in 64 KB slices, one
    /// scraper's scrape took longer (each flush waits for the socket to drain), and 16 concurrent
    /// scrapers' rate did not rise measurably (perf/results, "The scrape, 2026-11-26").</para>
    /// </remarks>
    private static async Task WriteBodyAsync(HttpContext context, ReadOnlyMemory<byte> body)
    {
        HttpResponse response = context.Response;
        if (context.Features.Get<IHttpMinResponseDataRateFeature>() is not { } dataRate)
        {
            await response.Body.WriteAsync(body, context.RequestAborted).ConfigureAwait(false);
            return;
        }

        if (dataRate.MinDataRate is { BytesPerSecond: > 0 } minimum)
        {
            double seconds = Math.Max(minimum.GracePeriod.TotalSeconds, body.Length / minimum.BytesPerSecond);
            dataRate.MinDataRate = new MinDataRate(minimum.BytesPerSecond, TimeSpan.FromSeconds(seconds));
        }

        await response.StartAsync(context.RequestAborted).ConfigureAwait(false);
        PipeWriter writer = response.BodyWriter;
        CopyInto(writer, body.Span);
        await writer.FlushAsync(context.RequestAborted).ConfigureAwait(false);
    }

    // As many pieces as the writer lends: one, from Kestrel's pipe, which lends an array of the size asked for.
    private static void CopyInto(PipeWriter writer, ReadOnlySpan<byte> body)
    {
        while (!body.IsEmpty)
        {
            Span<byte> memory = writer.GetSpan(body.Length);
            int length = Math.Min(memory.Length, body.Length);
            body[..length].CopyTo(memory);
            writer.Advance(length);
            body = body[length..];
        }
    }
}
