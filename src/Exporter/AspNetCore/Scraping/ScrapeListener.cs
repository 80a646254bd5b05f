using System.Net;
using System.Net.Sockets;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Hosting;
using Microsoft.AspNetCore.Hosting.Server;
using Microsoft.AspNetCore.Hosting.Server.Features;
using Microsoft.AspNetCore.Http;
using Microsoft.AspNetCore.Server.Kestrel.Core;
using Microsoft.AspNetCore.Server.Kestrel.Https;
using Microsoft.Extensions.Logging.Abstractions;
using ScalableMetrics.Exporter.Hosting;
using ScalableMetrics.Exporter.Prometheus.Scraping.Security;

namespace ScalableMetrics.Exporter.Prometheus.Scraping;

/// <summary>
/// The standalone scrape endpoint (<see cref="ScalableMetricsOptions.ScrapeListener"/>): a Kestrel
/// server of its own, started with the host and stopped when it stops (by
/// <see cref="ScalableMetricsHostedService"/>, which builds the provider first), serving
/// <c>GET path</c> (and <c>HEAD path</c>, its headers without the body) through the same
/// <see cref="PrometheusScraper"/> and the same answer (<see cref="ScrapeEndpoint"/>) as the ASP.NET
/// Core endpoint; 404 for any other path, 405 for any other method. Does nothing when no listener is configured.
/// </summary>
/// <remarks>
/// <para>Kestrel rather than <see cref="HttpListener"/>, which Microsoft advises against for new
/// development and which routes by the request's <c>Host</c> header: bound to <c>127.0.0.1</c>, it
/// answered a target written <c>localhost:9464</c> 404, <c>[::1]:9464</c> 400, and during a stop
/// answered some scrapes 404 (its prefixes gone) rather than 503. Kestrel serves whatever the
/// <c>Host</c> header says on the addresses it is bound to, and during a stop finishes the
/// requests it has (503 here, as the stop token is canceled first) and refuses new connections.</para>
/// <para>The server is a <see cref="WebApplication"/> from <see cref="WebApplication.CreateEmptyBuilder"/>:
/// Kestrel alone (<c>UseKestrelCore</c>), no configuration source (so <c>ASPNETCORE_URLS</c> and
/// the application's <c>Kestrel</c> section do not move it), no console lifetime (the application's
/// host owns Ctrl+C and SIGTERM, and stops this one), and its warnings and errors logged through
/// the application's logger factory.</para>
/// <para>With a web configuration (<see cref="ScrapeListenerOptions.WebConfigFile"/>, or its keys in the
/// listener's section), it serves HTTPS and asks for basic-auth credentials as Prometheus' own
/// exporters do (<see cref="ListenerSecurity"/>); every path then answers 401 without them.</para>
/// <para>Requests are handled concurrently; the scraper orders the collections.</para>
/// </remarks>
internal sealed partial class ScrapeListener(IServiceProvider services) : IDisposable
{
    // Where the web configuration's keys are read when no file is given.
    private const string ListenerSectionPath = "ScalableMetrics:ScrapeListener";

    private WebApplication? _server;
    private string _path = ScrapeListenerOptions.DefaultPath;
    private ILogger _logger = NullLogger.Instance;
    private PrometheusScraper? _scraper;
    private TimeSpan _defaultTimeout = ScalableMetricsOptions.DefaultScrapeTimeout;
    private ListenerSecurity? _security;

    // Canceled when the host stops: a scrape waiting then is answered 503, as the endpoint does.
    private readonly CancellationTokenSource _stopping = new();

    /// <summary>The TCP port the listener is bound to once started (the port the system chose for a
    /// configured port of 0); null before it starts, or when no listener is configured.</summary>
    public int? BoundPort { get; private set; }

    /// <summary>Starts listening, if a listener is configured.</summary>
    /// <exception cref="InvalidOperationException">The address cannot be listened on: the port is in use (the message names the
    /// address and <c>ScalableMetrics:ScrapeListener:Port</c>), or the host does not resolve or is not an address of this machine
    /// (the message names the address and <c>ScalableMetrics:ScrapeListener:Host</c>; the <see cref="SocketException"/> is the inner exception).</exception>
    public async Task StartAsync(CancellationToken cancellationToken)
    {
        ScalableMetricsOptions all = services.GetRequiredService<IOptions<ScalableMetricsOptions>>().Value;
        ScrapeListenerOptions? options = all.ScrapeListener;
        if (options is null)
        {
            return;
        }

        _scraper = services.GetRequiredService<PrometheusScraper>();
        _defaultTimeout = all.ScrapeTimeout;
        ILoggerFactory? loggers = services.GetService<ILoggerFactory>();
        _logger = loggers?.CreateLogger<ScrapeListener>() ?? (ILogger)NullLogger.Instance;
        _path = options.Path.Length > 1 ? options.Path.TrimEnd('/') : options.Path;

        _security = ListenerSecurity.Create(
            options,
            services.GetService<IConfiguration>()?.GetSection(ListenerSectionPath),
            loggers?.CreateLogger<ListenerSecurity>() ?? (ILogger)NullLogger.Instance);
        string scheme = _security?.UsesTls == true ? "https" : "http";
        string host = options.Host.Contains(':', StringComparison.Ordinal) && !options.Host.StartsWith('[') ? $"[{options.Host}]" : options.Host;
        string prefix = $"{scheme}://{host}:{options.Port}/";
        WebApplication server = Build(options, loggers);
        try
        {
            await server.StartAsync(cancellationToken).ConfigureAwait(false);
        }
        catch (Exception e)
        {
            // Whatever failed the start (a cancellation, a host of no address too), the half-built
            // server is disposed, so that nothing of it stays listening or running.
            await server.DisposeAsync().ConfigureAwait(false);
            if (e is IOException)
            {
                throw new InvalidOperationException($"The ScalableMetrics scrape listener could not listen on {prefix}: {e.Message} (is the port in use? Set ScalableMetrics:ScrapeListener:Port.)", e);
            }

            if (e is SocketException)
            {
                // A name that does not resolve (Dns, from Bind), or an address that is not this
                // machine's (the bind): the setting is the host, not the port.
                throw new InvalidOperationException($"The ScalableMetrics scrape listener could not listen on {prefix}: {e.Message} (is '{options.Host}' an address or name of this machine? Set ScalableMetrics:ScrapeListener:Host.)", e);
            }

            throw;
        }

        _server = server;
        BoundPort = BoundPortOf(server, options.Port);
        LogServing(_logger, $"{scheme}://{host}:{BoundPort}", _path, _security?.UsesBasicAuth == true ? " (basic authentication)" : string.Empty);
    }

    /// <summary>Answers the scrapes waiting 503, lets Kestrel finish the requests it has, and releases the port.</summary>
    public async Task StopAsync(CancellationToken cancellationToken)
    {
        _stopping.Cancel();
        WebApplication? server = Interlocked.Exchange(ref _server, null);
        if (server is null)
        {
            return;
        }

        try
        {
            await server.StopAsync(cancellationToken).ConfigureAwait(false);
        }
        finally
        {
            await server.DisposeAsync().ConfigureAwait(false);
        }
    }

    public void Dispose()
    {
        _stopping.Cancel();
        ((IDisposable?)Interlocked.Exchange(ref _server, null))?.Dispose();
    }

    private WebApplication Build(ScrapeListenerOptions options, ILoggerFactory? loggers)
    {
        WebApplicationBuilder builder = WebApplication.CreateEmptyBuilder(new WebApplicationOptions());
        builder.WebHost.UseKestrelCore().ConfigureKestrel(kestrel =>
        {
            kestrel.AddServerHeader = false;
            Bind(kestrel, options.Host, options.Port, UseSecurity);
        });

        // The application's host owns the process' signals: this one is stopped by it.
        builder.Services.AddSingleton<IHostLifetime, NoLifetime>();

        // Kestrel's and the server host's warnings and errors go to the application's log; their
        // information (a line per request, "Now listening on") would repeat at every scrape what
        // the listener's own start-up line says once.
        if (loggers is not null)
        {
            builder.Logging.SetMinimumLevel(LogLevel.Warning).AddProvider(new ForwardingLoggerProvider(loggers));
        }

        WebApplication server = builder.Build();
        server.Run(HandleAsync);
        return server;
    }

    // The addresses ScrapeListenerOptions.Host names: the loopback address by default; localhost
    // as Kestrel binds it (IPv4 and IPv6 loopback, where both exist); * or + every interface.
    private static void Bind(KestrelServerOptions kestrel, string host, int port, Action<ListenOptions> configure)
    {
        if (host is "*" or "+")
        {
            kestrel.ListenAnyIP(port, configure);
        }
        else if (string.Equals(host, "localhost", StringComparison.OrdinalIgnoreCase))
        {
            // Kestrel binds localhost's two addresses to one port it is given, not to one it picks.
            if (port == 0)
            {
                kestrel.Listen(IPAddress.Loopback, 0, configure);
            }
            else
            {
                kestrel.ListenLocalhost(port, configure);
            }
        }
        else if (IPAddress.TryParse(host.Trim('[', ']'), out IPAddress? address))
        {
            kestrel.Listen(address, port, configure);
        }
        else
        {
            // A name of this machine: each of its addresses (the first only for a port the system picks,
            // which would differ from address to address).
            IPAddress[] addresses = Dns.GetHostAddresses(host);
            if (addresses.Length == 0)
            {
                throw new InvalidOperationException($"The ScalableMetrics scrape listener's host '{host}' resolves to no address; set ScalableMetrics:ScrapeListener:Host to an address or name of this machine.");
            }

            foreach (IPAddress each in port == 0 ? addresses[..1] : addresses.Distinct())
            {
                kestrel.Listen(each, port, configure);
            }
        }
    }

    // TLS where the web configuration has it, its options taken at each handshake so that a
    // renewed certificate serves the next connection.
    private void UseSecurity(ListenOptions listen)
    {
        if (_security is { UsesTls: true } security)
        {
            listen.Protocols = HttpProtocols.Http1;
            listen.UseHttps(new TlsHandshakeCallbackOptions
            {
                OnConnection = _ => ValueTask.FromResult(security.ServerOptions()),
            });
        }
    }

    private static int BoundPortOf(WebApplication server, int configured)
    {
        ICollection<string>? addresses = server.Services.GetRequiredService<IServer>().Features.Get<IServerAddressesFeature>()?.Addresses;
        string? first = addresses?.FirstOrDefault();
        return first is not null && Uri.TryCreate(first, UriKind.Absolute, out Uri? uri) ? uri.Port : configured;
    }

    private async Task HandleAsync(HttpContext context)
    {
        HttpResponse response = context.Response;
        string path = context.Request.Path.Value ?? "";
        if (path.Length > 1)
        {
            path = path.TrimEnd('/');
        }

        if (path.Length == 0)
        {
            path = "/";
        }

        if (_security is not null && !_security.Authorize(context.Request.Headers.Authorization))
        {
            // RFC 7617; exporter-toolkit answers every path so, before looking at it.
            response.StatusCode = StatusCodes.Status401Unauthorized;
            response.Headers.WWWAuthenticate = "Basic realm=\"metrics\", charset=\"UTF-8\"";
        }
        else if (!string.Equals(path, _path, StringComparison.OrdinalIgnoreCase))
        {
            response.StatusCode = StatusCodes.Status404NotFound;
        }
        else if (!HttpMethods.IsGet(context.Request.Method) && !HttpMethods.IsHead(context.Request.Method))
        {
            // RFC 9110 §9.1: a general-purpose server supports GET and HEAD.
            response.StatusCode = StatusCodes.Status405MethodNotAllowed;
            response.Headers.Allow = "GET, HEAD";
        }
        else
        {
            try
            {
                await ScrapeEndpoint.HandleAsync(_scraper!, _defaultTimeout, _stopping.Token, context).ConfigureAwait(false);
            }
            catch (OperationCanceledException) when (context.RequestAborted.IsCancellationRequested)
            {
                // The client went away while the body was written: nobody is left to answer.
            }
            catch (Exception e) when (e is not OperationCanceledException)
            {
                LogRequestFailed(_logger, e);
                if (!response.HasStarted)
                {
                    response.StatusCode = StatusCodes.Status500InternalServerError;
                }
            }
        }
    }

    [LoggerMessage(EventId = 50, Level = LogLevel.Information, Message = "Prometheus scrape listener serving {Prefix}{Path}{Authentication}")]
    private static partial void LogServing(ILogger logger, string prefix, string path, string authentication);

    [LoggerMessage(EventId = 51, Level = LogLevel.Warning, Message = "Prometheus scrape listener: the request failed")]
    private static partial void LogRequestFailed(ILogger logger, Exception exception);

    /// <summary>Hands the listener's server's log to the application's logger factory, whose filters then apply too.</summary>
    private sealed class ForwardingLoggerProvider(ILoggerFactory application) : ILoggerProvider
    {
        public ILogger CreateLogger(string categoryName) => application.CreateLogger(categoryName);

        // The application's factory is the application's to dispose.
        public void Dispose()
        {
        }
    }

    /// <summary>The listener's server's lifetime: none of its own, as the application's host stops it.</summary>
    private sealed class NoLifetime : IHostLifetime
    {
        public Task WaitForStartAsync(CancellationToken cancellationToken) => Task.CompletedTask;

        public Task StopAsync(CancellationToken cancellationToken) => Task.CompletedTask;
    }
}
