using System.Globalization;
using System.IO.Compression;
using System.Net;
using System.Net.Sockets;
using System.Text;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Hosting;
using Microsoft.AspNetCore.Routing;
using Microsoft.AspNetCore.Server.Kestrel.Core;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Logging;

namespace ScalableMetrics.Exporter.Tests.Prometheus.Scraping;

/// <summary>
/// A body of megabytes written to Kestrel in one piece (<c>ScrapeEndpoint.WriteBodyAsync</c>):
/// every byte arrives, plain and gzip, over HTTP/1.1 and HTTP/2, and a client that reads it
/// slowly over HTTP/1.1 is given as long as Kestrel gives one write of the body's length, not
/// only the grace period.
/// </summary>
public sealed class ScrapeResponseWriteTests
{
    // About 4.1 MB of text: 1,000 series, each with four tags of 1,000 characters (the default limit is 1,024).
    private const int Series = 1_000;
    private const int TagLength = 1_000;
    private const int TagsPerSeries = 4;

    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public async Task ABodyOfMegabytesArrivesWhole(bool gzip)
    {
        await using WebApplication app = await StartAsync(configureKestrel: null);
        using var client = new HttpClient(new SocketsHttpHandler { AutomaticDecompression = DecompressionMethods.None });
        using var request = new HttpRequestMessage(HttpMethod.Get, new Uri(new Uri(Assert.Single(app.Urls)), "/metrics"));
        if (gzip)
        {
            request.Headers.AcceptEncoding.ParseAdd("gzip");
        }

        using HttpResponseMessage response = await client.SendAsync(request);
        byte[] sent = await response.Content.ReadAsByteArrayAsync();

        Assert.Equal(HttpStatusCode.OK, response.StatusCode);
        Assert.Equal(sent.Length, response.Content.Headers.ContentLength);
        Assert.Equal(gzip, response.Content.Headers.ContentEncoding.Contains("gzip"));
        string text = Encoding.UTF8.GetString(gzip ? Inflate(sent) : sent);
        AssertEverySeries(text);
    }

    [Fact]
    public async Task OverHttp2TheBodyArrivesWholeThroughTheResponseStream()
    {
        // HTTP/2 without TLS (prior knowledge), as Prometheus speaks it to an HTTPS target that offers
        // it: Kestrel's HTTP/2 streams offer no per-request response data rate (Kestrel's documentation
        // on its limits), and the body goes out in one write to the response's stream.
        await using WebApplication app = await StartAsync(kestrel => kestrel.Listen(IPAddress.Loopback, 0, listen => listen.Protocols = HttpProtocols.Http2));
        using var client = new HttpClient();
        using var request = new HttpRequestMessage(HttpMethod.Get, new Uri(new Uri(Assert.Single(app.Urls)), "/metrics"))
        {
            Version = HttpVersion.Version20,
            VersionPolicy = HttpVersionPolicy.RequestVersionExact,
        };

        using HttpResponseMessage response = await client.SendAsync(request);
        byte[] sent = await response.Content.ReadAsByteArrayAsync();

        Assert.Equal(HttpStatusCode.OK, response.StatusCode);
        Assert.Equal(HttpVersion.Version20, response.Version);
        Assert.Equal(sent.Length, response.Content.Headers.ContentLength);
        AssertEverySeries(Encoding.UTF8.GetString(sent));
    }

    [Fact]
    public async Task AClientSlowerThanTheBodyOverTheGracePeriodIsNotCutOff()
    {
        // 240 bytes/s (Kestrel's default) with a 2 s grace period: one write of the body is given
        // hours, lent memory flushed without its length would be given 2 s.
        await using WebApplication app = await StartAsync(kestrel => kestrel.Limits.MinResponseDataRate = new MinDataRate(240, TimeSpan.FromSeconds(2)));
        var endpoint = new Uri(Assert.Single(app.Urls));
        using var socket = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp) { ReceiveBufferSize = 4096 };
        await socket.ConnectAsync(IPAddress.Loopback, endpoint.Port);
        await socket.SendAsync(Encoding.ASCII.GetBytes($"GET /metrics HTTP/1.1\r\nHost: 127.0.0.1:{endpoint.Port}\r\nConnection: close\r\n\r\n"));

        // Reads nothing past Kestrel's heartbeats after the grace period: the response's flush is
        // still waiting for this client, as the kernel's buffers hold a small part of the body.
        await Task.Delay(TimeSpan.FromSeconds(4.5));
        byte[] response = await ReadToEndAsync(socket);

        int headersEnd = response.AsSpan().IndexOf("\r\n\r\n"u8);
        Assert.True(headersEnd > 0, "No response headers arrived: the connection was closed.");
        string headers = Encoding.ASCII.GetString(response, 0, headersEnd);
        Assert.StartsWith("HTTP/1.1 200", headers, StringComparison.Ordinal);
        string contentLength = headers.Split("\r\n").Single(h => h.StartsWith("Content-Length:", StringComparison.OrdinalIgnoreCase))["Content-Length:".Length..].Trim();
        int bodyLength = response.Length - headersEnd - 4;
        Assert.Equal(int.Parse(contentLength, CultureInfo.InvariantCulture), bodyLength);
        AssertEverySeries(Encoding.UTF8.GetString(response, headersEnd + 4, bodyLength));
    }

    private static async Task<WebApplication> StartAsync(Action<KestrelServerOptions>? configureKestrel)
    {
        WebApplicationBuilder builder = WebApplication.CreateSlimBuilder();
        builder.Logging.ClearProviders();
        builder.WebHost.UseUrls("http://127.0.0.1:0");
        if (configureKestrel is not null)
        {
            builder.WebHost.ConfigureKestrel(configureKestrel);
        }

        builder.Services.AddScalableMetrics(o => o.MeterName = "test.response." + Guid.NewGuid().ToString("N"));
        WebApplication app = builder.Build();
        app.MapScalableMetrics();
        await app.StartAsync();
        PartitionedCounter counter = app.Services.GetRequiredService<MetricRegistry>().CreateCounter("wide");
        for (int i = 0; i < Series; i++)
        {
            string value = i.ToString("D4", CultureInfo.InvariantCulture) + new string('x', TagLength - 4);
            counter.Add(i + 1, [new("a", value), new("b", value), new("c", value), new("d", value)]);
        }

        return app;
    }

    private static void AssertEverySeries(string text)
    {
        Assert.True(text.Length > Series * TagsPerSeries * TagLength, $"The body is {text.Length} characters.");
        PrometheusSample[] series = [.. PrometheusText.Parse(text).Where(s => s.Name == "wide_total")];
        Assert.Equal(Series, series.Length);
        Assert.Equal(Series * (Series + 1) / 2.0, series.Sum(s => s.NumericValue));
    }

    private static async Task<byte[]> ReadToEndAsync(Socket socket)
    {
        using var received = new MemoryStream();
        byte[] buffer = new byte[64 * 1024];
        try
        {
            int read;
            while ((read = await socket.ReceiveAsync(buffer)) > 0)
            {
                received.Write(buffer, 0, read);
            }
        }
        catch (SocketException)
        {
            // Reset by the server: what arrived before is what the assertions see.
        }

        return received.ToArray();
    }

    private static byte[] Inflate(byte[] compressed)
    {
        using var inflated = new MemoryStream();
        using (var gzip = new GZipStream(new MemoryStream(compressed), CompressionMode.Decompress))
        {
            gzip.CopyTo(inflated);
        }

        return inflated.ToArray();
    }
}
