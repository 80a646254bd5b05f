using System.Net;
using System.Net.Sockets;
using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Options;
using ScalableMetrics.Exporter.Prometheus.Scraping;

namespace ScalableMetrics.Exporter.Tests.Prometheus.Scraping;

/// <summary>
/// The standalone scrape listener (<see cref="ScalableMetricsOptions.AddScrapeListener"/>): a
/// generic host without ASP.NET Core's server, scraped over real loopback HTTP with bounded requests.
/// </summary>
public sealed class ScrapeListenerTests
{
    private static readonly TimeSpan s_requestTimeout = TimeSpan.FromSeconds(30);

    [Fact]
    public async Task ServesOpenMetricsGzippedToAScraperThatAsksAsPrometheusDoes()
    {
        using IHost host = BuildHost(o => o.AddScrapeListener(0));
        host.Services.GetRequiredService<MetricRegistry>().CreateCounter("listener.items", "{item}").Add(42);
        await host.StartAsync();
        int port = BoundPort(host);
        try
        {
            using HttpClient client = NewClient();
            using var request = new HttpRequestMessage(HttpMethod.Get, new Uri($"http://127.0.0.1:{port}/metrics"));
            request.Headers.TryAddWithoutValidation("Accept", "application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1");
            request.Headers.TryAddWithoutValidation("Accept-Encoding", "gzip");
            using HttpResponseMessage response = await client.SendAsync(request);
            using var gzip = new System.IO.Compression.GZipStream(await response.Content.ReadAsStreamAsync(), System.IO.Compression.CompressionMode.Decompress);
            using var reader = new StreamReader(gzip);
            string body = await reader.ReadToEndAsync();

            Assert.Equal(HttpStatusCode.OK, response.StatusCode);
            Assert.Equal(PrometheusScraper.OpenMetricsContentType + "; escaping=underscores", response.Content.Headers.ContentType?.ToString());
            Assert.Contains("gzip", response.Content.Headers.ContentEncoding);
            Assert.NotEqual(true, response.Headers.TransferEncodingChunked);
            Assert.True(response.Content.Headers.ContentLength > 0);
            Assert.Contains("\nlistener_items_total{otel_scope_name=\"ScalableMetrics\"} 42\n", "\n" + body);
            Assert.EndsWith("# EOF\n", body, StringComparison.Ordinal);
        }
        finally
        {
            await host.StopAsync();
        }
    }

    [Fact]
    public async Task ServesTheScrapersExpositionWithACountersExactValue()
    {
        // Without the self-metrics, whose scrape duration differs from one collection to the next.
        using IHost host = BuildHost(o => o.AddScrapeListener(0).ExportSelfMetrics = false);
        MetricRegistry registry = host.Services.GetRequiredService<MetricRegistry>();
        PartitionedCounter counter = registry.CreateCounter("listener.items", "{item}", "Items.");
        counter.Add(40, new KeyValuePair<string, object?>("queue", "a"));
        counter.Add(2, new KeyValuePair<string, object?>("queue", "a"));
        await host.StartAsync();
        int port = BoundPort(host);
        try
        {
            using HttpClient client = NewClient();
            using HttpResponseMessage response = await client.GetAsync(new Uri($"http://127.0.0.1:{port}/metrics"));
            string body = await response.Content.ReadAsStringAsync();

            Assert.Equal(HttpStatusCode.OK, response.StatusCode);
            Assert.Equal(PrometheusScraper.ContentType, response.Content.Headers.ContentType?.ToString());
            Assert.Contains("\nlistener_items_total{otel_scope_name=\"ScalableMetrics\",queue=\"a\"} 42\n", "\n" + body);

            // The same bytes the scraper gives the ASP.NET Core endpoint.
            byte[] direct = await host.Services.GetRequiredService<PrometheusScraper>().ScrapeAsync();
            Assert.Equal(System.Text.Encoding.UTF8.GetString(direct), body);
        }
        finally
        {
            await host.StopAsync();
        }
    }

    [Fact]
    public async Task Answers404ForOtherPathsAnd405ForOtherMethods()
    {
        using IHost host = BuildHost(o => o.AddScrapeListener(0, "/custom/scrape"));
        await host.StartAsync();
        int port = BoundPort(host);
        try
        {
            using HttpClient client = NewClient();
            var root = new Uri($"http://127.0.0.1:{port}");
            using HttpResponseMessage scrape = await client.GetAsync(new Uri(root, "/custom/scrape"));
            using HttpResponseMessage other = await client.GetAsync(new Uri(root, "/metrics"));
            using HttpResponseMessage post = await client.PostAsync(new Uri(root, "/custom/scrape"), new StringContent(""));

            Assert.Equal(HttpStatusCode.OK, scrape.StatusCode);
            Assert.Equal(HttpStatusCode.NotFound, other.StatusCode);
            Assert.Equal(HttpStatusCode.MethodNotAllowed, post.StatusCode);
            Assert.Contains("GET", post.Content.Headers.Allow);
        }
        finally
        {
            await host.StopAsync();
        }
    }

    // RFC 9110 §9.1: "All general-purpose servers MUST support the methods GET and HEAD";
    // §9.3.2: HEAD is identical to GET except that the server MUST NOT send content.
    [Fact]
    public async Task HeadIsAnsweredAsGetWithItsHeadersAndNoBody()
    {
        using IHost host = BuildHost(o => o.AddScrapeListener(0));
        await host.StartAsync();
        int port = BoundPort(host);
        try
        {
            using HttpClient client = NewClient();
            var uri = new Uri($"http://127.0.0.1:{port}/metrics");
            using HttpResponseMessage get = await client.GetAsync(uri);
            using var request = new HttpRequestMessage(HttpMethod.Head, uri);
            using HttpResponseMessage head = await client.SendAsync(request);

            Assert.Equal(HttpStatusCode.OK, head.StatusCode);
            Assert.Equal(get.Content.Headers.ContentType, head.Content.Headers.ContentType);
            Assert.True(head.Content.Headers.ContentLength > 0, "HEAD's Content-Length is GET's, not none.");
            Assert.Empty(await head.Content.ReadAsByteArrayAsync());
        }
        finally
        {
            await host.StopAsync();
        }
    }

    [Theory]
    [InlineData("localhost")]
    [InlineData("[::1]")]
    [InlineData("127.0.0.1")]
    public async Task AnyLoopbackHostHeaderIsServed(string hostHeader)
    {
        // A Prometheus target written localhost:9464 sends Host: localhost:9464 to the address
        // it resolved; the listener on the default 127.0.0.1 must serve it, whatever it is called.
        using IHost host = BuildHost(o => o.AddScrapeListener(0));
        await host.StartAsync();
        int port = BoundPort(host);
        try
        {
            using HttpClient client = NewClient();
            using var request = new HttpRequestMessage(HttpMethod.Get, new Uri($"http://127.0.0.1:{port}/metrics"));
            request.Headers.Host = $"{hostHeader}:{port}";
            using HttpResponseMessage response = await client.SendAsync(request);

            Assert.Equal(HttpStatusCode.OK, response.StatusCode);
        }
        finally
        {
            await host.StopAsync();
        }
    }

    [Fact]
    public async Task AStoppingListenerAnswersOnly200Or503OrRefuses()
    {
        // Several stops, each under 32 scrape loops: the race between a stop and a request in
        // flight is hit in some stops, not every one.
        const int Stops = 4;
        const int Loops = 32;
        const int MaxRequestsPerLoop = 400;
        var statuses = new System.Collections.Concurrent.ConcurrentDictionary<HttpStatusCode, int>();
        var failures = new System.Collections.Concurrent.ConcurrentBag<Exception>();
        for (int stop = 0; stop < Stops; stop++)
        {
            using IHost host = BuildHost(o => o.AddScrapeListener(0));
            host.Services.GetRequiredService<MetricRegistry>().CreateCounter("listener.items").Add(1);
            await host.StartAsync();
            int port = BoundPort(host);
            using HttpClient client = NewClient();
            var uri = new Uri($"http://127.0.0.1:{port}/metrics");
            int answered = 0;
            bool stopped = false;
            Task[] loops = [.. Enumerable.Range(0, Loops).Select(_ => Task.Run(async () =>
            {
                for (int i = 0; i < MaxRequestsPerLoop && !Volatile.Read(ref stopped); i++)
                {
                    try
                    {
                        using HttpResponseMessage response = await client.GetAsync(uri);
                        statuses.AddOrUpdate(response.StatusCode, 1, static (_, n) => n + 1);
                        Interlocked.Increment(ref answered);
                    }
                    catch (HttpRequestException)
                    {
                        // Refused, or the connection closed under the request: the port is going.
                    }
                    catch (Exception e)
                    {
                        failures.Add(e);
                    }
                }
            }))];

            // Stop once the loops are scraping, so that the stop meets requests in flight.
            while (Volatile.Read(ref answered) < 2 * Loops && !loops.All(l => l.IsCompleted))
            {
                await Task.Delay(5);
            }

            await host.StopAsync();
            Volatile.Write(ref stopped, true);
            await Task.WhenAll(loops);
        }

        Assert.Empty(failures);
        Assert.True(statuses.ContainsKey(HttpStatusCode.OK));
        Assert.All(statuses.Keys, status => Assert.True(status is HttpStatusCode.OK or HttpStatusCode.ServiceUnavailable, $"a stopping listener answered {(int)status} ({statuses[status]} times)"));
    }

    [Fact]
    public async Task PortZeroListensOnAPortTheSystemPicksAndSaysWhich()
    {
        using IHost host = BuildHost(o => o.AddScrapeListener(0));
        ScrapeListener listener = host.Services.GetRequiredService<ScrapeListener>();
        Assert.Null(listener.BoundPort);
        await host.StartAsync();
        try
        {
            int port = Assert.NotNull(listener.BoundPort);
            Assert.InRange(port, 1, 65535);
            using HttpClient client = NewClient();
            using HttpResponseMessage response = await client.GetAsync(new Uri($"http://127.0.0.1:{port}/metrics"));
            Assert.Equal(HttpStatusCode.OK, response.StatusCode);
        }
        finally
        {
            await host.StopAsync();
        }
    }

    [Fact]
    public async Task TheListenerLogsWhereItServesOnceAndNothingPerScrape()
    {
        var logs = new ListLogger();
        HostApplicationBuilder builder = Host.CreateApplicationBuilder();
        builder.Logging.ClearProviders().AddProvider(new OneLoggerProvider(logs));
        builder.AddScalableMetrics(o => o.AddScrapeListener(0));
        using IHost host = builder.Build();
        await host.StartAsync();
        int port = BoundPort(host);
        try
        {
            using HttpClient client = NewClient();
            for (int i = 0; i < 2; i++)
            {
                using HttpResponseMessage response = await client.GetAsync(new Uri($"http://127.0.0.1:{port}/metrics"));
                Assert.Equal(HttpStatusCode.OK, response.StatusCode);
            }
        }
        finally
        {
            await host.StopAsync();
        }

        var serving = Assert.Single(logs.Events, e => e.EventId.Id == 50);
        Assert.Equal(($"Prometheus scrape listener serving http://127.0.0.1:{port}/metrics", LogLevel.Information), (serving.Message, serving.Level));

        // Kestrel's and its host's information (a line per request, "Now listening on") is left out.
        Assert.DoesNotContain(logs.Messages, m => m.Contains("Request starting", StringComparison.Ordinal) || m.Contains("Now listening", StringComparison.Ordinal));
    }

    [Fact]
    public async Task StoppingTheHostReleasesThePort()
    {
        using IHost host = BuildHost(o => o.AddScrapeListener(0));
        await host.StartAsync();
        int port = BoundPort(host);
        using (HttpClient client = NewClient())
        using (HttpResponseMessage response = await client.GetAsync(new Uri($"http://127.0.0.1:{port}/metrics")))
        {
            Assert.Equal(HttpStatusCode.OK, response.StatusCode);
        }

        await host.StopAsync();

        // Binding the port again succeeds only once the listener's socket is closed.
        var probe = new TcpListener(IPAddress.Loopback, port);
        probe.Start();
        probe.Stop();
        using HttpClient after = NewClient();
        await Assert.ThrowsAsync<HttpRequestException>(() => after.GetAsync(new Uri($"http://127.0.0.1:{port}/metrics")));
    }

    [Fact]
    public async Task ListenerIsConfiguredFromTheConfigurationSection()
    {
        HostApplicationBuilder builder = Host.CreateApplicationBuilder();
        builder.Configuration.AddInMemoryCollection(new Dictionary<string, string?>
        {
            ["ScalableMetrics:ScrapeListener:Port"] = "0",
            ["ScalableMetrics:ScrapeListener:Path"] = "/prometheus",
        });
        builder.AddScalableMetrics();
        using IHost host = builder.Build();
        await host.StartAsync();
        int port = BoundPort(host);
        try
        {
            using HttpClient client = NewClient();
            using HttpResponseMessage response = await client.GetAsync(new Uri($"http://127.0.0.1:{port}/prometheus"));
            Assert.Equal(HttpStatusCode.OK, response.StatusCode);
            Assert.Equal(ScrapeListenerOptions.DefaultHost, host.Services.GetRequiredService<IOptions<ScalableMetricsOptions>>().Value.ScrapeListener?.Host);
        }
        finally
        {
            await host.StopAsync();
        }
    }

    [Theory]
    [InlineData("-1", "/metrics", "ScrapeListener.Port must be within 0 to 65535; it is -1.")]
    [InlineData("65536", "/metrics", "ScrapeListener.Port must be within 0 to 65535; it is 65536.")]
    [InlineData("9464", "", "ScrapeListener.Path must not be empty")]
    [InlineData("9464", "metrics", "ScrapeListener.Path must start with '/'")]
    public async Task HostFailsToStartOnInvalidListenerSettings(string port, string path, string expected)
    {
        // Bound as the options are from configuration: no argument check ran on these values.
        using IHost host = BuildHost(o => o.ScrapeListener = new ScrapeListenerOptions
        {
            Port = int.Parse(port, System.Globalization.CultureInfo.InvariantCulture),
            Path = path,
        });

        OptionsValidationException error = await Assert.ThrowsAsync<OptionsValidationException>(() => host.StartAsync());
        Assert.Contains(expected, error.Message);
    }

    [Fact]
    public void AddScrapeListenerRefusesBadArgumentsAndKeepsNone()
    {
        var options = new ScalableMetricsOptions();

        Assert.Equal("port", Assert.Throws<ArgumentOutOfRangeException>(() => options.AddScrapeListener(-1)).ParamName);
        Assert.Equal("port", Assert.Throws<ArgumentOutOfRangeException>(() => options.AddScrapeListener(65536)).ParamName);
        Assert.Equal("path", Assert.Throws<ArgumentException>(() => options.AddScrapeListener(path: "")).ParamName);
        Assert.Equal("path", Assert.Throws<ArgumentNullException>(() => options.AddScrapeListener(path: null!)).ParamName);
        Assert.Equal("host", Assert.Throws<ArgumentException>(() => options.AddScrapeListener(host: " ")).ParamName);
        ArgumentException longHost = Assert.Throws<ArgumentException>(() => options.AddScrapeListener(host: "http://" + new string('h', 10_000)));
        Assert.True(longHost.Message.Length < 400, "a long host is cut in the message");
        Assert.Null(options.ScrapeListener);

        Assert.Same(options, options.AddScrapeListener());
        Assert.Equal((9464, "/metrics", "127.0.0.1"), (options.ScrapeListener!.Port, options.ScrapeListener.Path, options.ScrapeListener.Host));
    }

    [Fact]
    public async Task APortInUseFailsTheStartWithThePrefixInTheMessage()
    {
        var occupant = new TcpListener(IPAddress.Loopback, 0);
        occupant.Start();
        try
        {
            int port = ((IPEndPoint)occupant.LocalEndpoint).Port;
            using IHost host = BuildHost(o => o.AddScrapeListener(port));

            InvalidOperationException error = await Assert.ThrowsAsync<InvalidOperationException>(() => host.StartAsync());
            Assert.Contains($"http://127.0.0.1:{port}/", error.Message);
        }
        finally
        {
            occupant.Stop();
        }
    }

    // docs/worker-services.md: a port in use fails the start naming the address, and bad settings
    // stop it naming the setting. A host the listener cannot bind (a "name:port", an address that is
    // not the machine's, a name that does not resolve) failed the start with a bare SocketException
    // ("Cannot assign requested address", "Name or service not known") that named neither the
    // address nor the option. Only cases decided on this machine: "name:port" is refused before
    // any resolution, and 192.0.2.1 (TEST-NET-1) fails at the local bind; a name that does not
    // resolve would ask the machine's DNS, and is wrapped by the same catch as the bind.
    [Theory]
    [InlineData("localhost:9464")]
    [InlineData("127.0.0.1:9464")]
    [InlineData("[::1]:9464")]
    [InlineData("192.0.2.1")]
    public async Task AHostTheListenerCannotBindFailsTheStartNamingTheSetting(string listenerHost)
    {
        using IHost host = BuildHost(o => o.ScrapeListener = new ScrapeListenerOptions { Port = 0, Host = listenerHost });

        Exception error = Assert.IsAssignableFrom<Exception>(await Record.ExceptionAsync(() => host.StartAsync()));

        Assert.True(error is InvalidOperationException { InnerException: SocketException } or OptionsValidationException, $"{error.GetType()}: {error.Message}");
        Assert.Contains(listenerHost, error.Message, StringComparison.Ordinal);
        Assert.Contains(error is OptionsValidationException ? "ScrapeListener.Host" : "ScalableMetrics:ScrapeListener:Host", error.Message, StringComparison.Ordinal);
    }

    private static IHost BuildHost(Action<ScalableMetricsOptions> configure)
    {
        HostApplicationBuilder builder = Host.CreateApplicationBuilder();
        builder.AddScalableMetrics(configure);
        return builder.Build();
    }

    private sealed class OneLoggerProvider(ILogger logger) : ILoggerProvider
    {
        public ILogger CreateLogger(string categoryName) => logger;

        public void Dispose()
        {
        }
    }

    private static HttpClient NewClient() => new() { Timeout = s_requestTimeout };

    // The port the listener bound for a configured port of 0: the system's pick, held from the
    // start, so that no other process can take it between a probe and the bind.
    private static int BoundPort(IHost host) =>
        Assert.NotNull(host.Services.GetRequiredService<ScrapeListener>().BoundPort);
}
