using System.Net;
using System.Net.Sockets;
using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Options;

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
        int port = FreeLoopbackPort();
        using IHost host = BuildHost(o => o.AddScrapeListener(port));
        host.Services.GetRequiredService<MetricRegistry>().CreateCounter("listener.items", "{item}").Add(42);
        await host.StartAsync();
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
            Assert.Equal(PrometheusScraper.OpenMetricsContentType, response.Content.Headers.ContentType?.ToString());
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
        int port = FreeLoopbackPort();
        using IHost host = BuildHost(o => o.AddScrapeListener(port));
        MetricRegistry registry = host.Services.GetRequiredService<MetricRegistry>();
        PartitionedCounter counter = registry.CreateCounter("listener.items", "{item}", "Items.");
        counter.Add(40, new KeyValuePair<string, object?>("queue", "a"));
        counter.Add(2, new KeyValuePair<string, object?>("queue", "a"));
        await host.StartAsync();
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
        int port = FreeLoopbackPort();
        using IHost host = BuildHost(o => o.AddScrapeListener(port, "/custom/scrape"));
        await host.StartAsync();
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

    [Fact]
    public async Task StoppingTheHostReleasesThePort()
    {
        int port = FreeLoopbackPort();
        using IHost host = BuildHost(o => o.AddScrapeListener(port));
        await host.StartAsync();
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
        int port = FreeLoopbackPort();
        HostApplicationBuilder builder = Host.CreateApplicationBuilder();
        builder.Configuration.AddInMemoryCollection(new Dictionary<string, string?>
        {
            ["ScalableMetrics:ScrapeListener:Port"] = port.ToString(System.Globalization.CultureInfo.InvariantCulture),
            ["ScalableMetrics:ScrapeListener:Path"] = "/prometheus",
        });
        builder.AddScalableMetrics();
        using IHost host = builder.Build();
        await host.StartAsync();
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
    [InlineData("0", "/metrics", "ScrapeListener.Port must be within 1 to 65535; it is 0.")]
    [InlineData("65536", "/metrics", "ScrapeListener.Port must be within 1 to 65535; it is 65536.")]
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

        Assert.Equal("port", Assert.Throws<ArgumentOutOfRangeException>(() => options.AddScrapeListener(0)).ParamName);
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

    private static IHost BuildHost(Action<ScalableMetricsOptions> configure)
    {
        HostApplicationBuilder builder = Host.CreateApplicationBuilder();
        builder.AddScalableMetrics(configure);
        return builder.Build();
    }

    private static HttpClient NewClient() => new() { Timeout = s_requestTimeout };

    // A port free now: the operating system's pick for port 0, released. Another process could
    // take it before the host binds it; on a test machine that is rare, and the test then fails
    // loudly at start rather than passing wrongly.
    private static int FreeLoopbackPort()
    {
        var listener = new TcpListener(IPAddress.Loopback, 0);
        listener.Start();
        int port = ((IPEndPoint)listener.LocalEndpoint).Port;
        listener.Stop();
        return port;
    }
}
