using System.Net;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Logging.Abstractions;
using Microsoft.Extensions.Options;
using ScalableMetrics.Exporter.Hosting;

namespace ScalableMetrics.Exporter.Prometheus.Scraping;

/// <summary>
/// The standalone scrape endpoint (<see cref="ScalableMetricsOptions.ScrapeListener"/>): an
/// <see cref="HttpListener"/> started with the host and closed when it stops (by
/// <see cref="ScalableMetricsHostedService"/>, which builds the provider first), serving
/// <c>GET path</c> through the same <see cref="PrometheusScraper"/> as the ASP.NET Core endpoint;
/// 404 for any other path, 405 for any other method. Does nothing when no listener is configured.
/// </summary>
/// <remarks>
/// Requests are handled concurrently, each on its own task; the scraper orders the collections.
/// <see cref="HttpListener"/> is the BCL's own server (managed on Linux and macOS, http.sys on
/// Windows, where a prefix other than localhost may need a URL reservation), so a worker service
/// needs no Kestrel.
/// </remarks>
internal sealed class ScrapeListener(IServiceProvider services) : IDisposable
{
    private HttpListener? _listener;
    private Task? _acceptLoop;
    private string _path = ScrapeListenerOptions.DefaultPath;
    private ILogger _logger = NullLogger.Instance;
    private PrometheusScraper? _scraper;
    private TimeSpan _defaultTimeout = ScalableMetricsOptions.DefaultScrapeTimeout;

    // Canceled when the host stops: a scrape waiting then is answered 503, as the endpoint does.
    private readonly CancellationTokenSource _stopping = new();

    /// <summary>Starts listening, if a listener is configured.</summary>
    /// <exception cref="InvalidOperationException">The prefix cannot be listened on (the port is in use).</exception>
    public Task StartAsync(CancellationToken cancellationToken)
    {
        ScalableMetricsOptions all = services.GetRequiredService<IOptions<ScalableMetricsOptions>>().Value;
        ScrapeListenerOptions? options = all.ScrapeListener;
        if (options is null)
        {
            return Task.CompletedTask;
        }

        _scraper = services.GetRequiredService<PrometheusScraper>();
        _defaultTimeout = all.ScrapeTimeout;
        _logger = services.GetService<ILoggerFactory>()?.CreateLogger<ScrapeListener>() ?? (ILogger)NullLogger.Instance;
        _path = options.Path.Length > 1 ? options.Path.TrimEnd('/') : options.Path;

        // The prefix is the root, so that every path reaches the listener and gets its 404 here
        // rather than the listener's own reply.
        string host = options.Host.Contains(':', StringComparison.Ordinal) && !options.Host.StartsWith('[') ? $"[{options.Host}]" : options.Host;
        string prefix = $"http://{host}:{options.Port}/";
        var listener = new HttpListener { IgnoreWriteExceptions = true };
        listener.Prefixes.Add(prefix);
        try
        {
            listener.Start();
        }
        catch (HttpListenerException e)
        {
            listener.Close();
            throw new InvalidOperationException($"The ScalableMetrics scrape listener could not listen on {prefix}: {e.Message} (is the port in use? Set ScalableMetrics:ScrapeListener:Port.)", e);
        }

        _listener = listener;
        _acceptLoop = Task.Run(() => AcceptLoopAsync(listener), CancellationToken.None);
        _logger.LogInformation("Prometheus scrape listener serving {Prefix}{Path}", prefix.TrimEnd('/'), _path);
        return Task.CompletedTask;
    }

    /// <summary>Closes the listener, releasing the port, and waits for its accept loop to end.</summary>
    public async Task StopAsync(CancellationToken cancellationToken)
    {
        _stopping.Cancel();
        HttpListener? listener = Interlocked.Exchange(ref _listener, null);
        if (listener is null)
        {
            return;
        }

        // Close, not Stop: it releases the port and fails the pending accept, which ends the loop.
        listener.Close();
        if (_acceptLoop is not null)
        {
            await _acceptLoop.WaitAsync(cancellationToken).ConfigureAwait(false);
        }
    }

    public void Dispose() => Interlocked.Exchange(ref _listener, null)?.Close();

    private async Task AcceptLoopAsync(HttpListener listener)
    {
        while (true)
        {
            HttpListenerContext context;
            try
            {
                context = await listener.GetContextAsync().ConfigureAwait(false);
            }
            catch (Exception e) when (e is HttpListenerException or ObjectDisposedException or InvalidOperationException)
            {
                // Closed by StopAsync or Dispose.
                return;
            }

            _ = Task.Run(() => HandleAsync(context), CancellationToken.None);
        }
    }

    private async Task HandleAsync(HttpListenerContext context)
    {
        HttpListenerResponse response = context.Response;
        try
        {
            string path = context.Request.Url?.AbsolutePath ?? "";
            if (path.Length > 1)
            {
                path = path.TrimEnd('/');
            }

            if (!string.Equals(path, _path, StringComparison.OrdinalIgnoreCase))
            {
                response.StatusCode = (int)HttpStatusCode.NotFound;
            }
            else if (context.Request.HttpMethod != "GET")
            {
                response.StatusCode = (int)HttpStatusCode.MethodNotAllowed;
                response.AddHeader("Allow", "GET");
            }
            else
            {
                await ScrapeAsync(context.Request, response).ConfigureAwait(false);
            }
        }
        catch (ObjectDisposedException)
        {
            // The listener answered the request itself (411 for a body without a length) or is
            // closing: nothing is left to answer.
            return;
        }
        catch (Exception e)
        {
            _logger.LogWarning(e, "Prometheus scrape listener: the request failed");
        }

        try
        {
            response.Close();
        }
        catch (Exception e) when (e is ObjectDisposedException or HttpListenerException)
        {
            // The client went away, or the listener closed: the connection is gone either way.
        }
    }

    // The same answer as MapPrometheusScrapingEndpoint gives (ScrapeAnswer), written to an HttpListener response.
    private async Task ScrapeAsync(HttpListenerRequest request, HttpListenerResponse response)
    {
        using ScrapeAnswer? answer = await ScrapeAnswer.ScrapeAsync(
            _scraper!,
            request.Headers["Accept"],
            request.Headers["Accept-Encoding"],
            request.Headers[ScrapeTimeoutHeader.Name],
            _defaultTimeout,
            _stopping.Token,
            CancellationToken.None).ConfigureAwait(false);
        if (answer is null)
        {
            return;
        }

        response.StatusCode = answer.StatusCode;
        if (!answer.HasBody)
        {
            return;
        }

        response.ContentType = answer.ContentType;
        response.AddHeader("Vary", ScrapeAnswer.Vary);
        if (answer.Gzip)
        {
            response.AddHeader("Content-Encoding", "gzip");
        }
        else
        {
            response.ContentLength64 = answer.Body.Length;
        }

        await answer.WriteBodyAsync(response.OutputStream, CancellationToken.None).ConfigureAwait(false);
    }
}
