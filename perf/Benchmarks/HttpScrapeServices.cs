using System.Buffers;
using System.Diagnostics.Metrics;
using System.IO.Compression;
using System.Net;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Hosting;
using Microsoft.AspNetCore.ResponseCompression;
using Microsoft.AspNetCore.Routing;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Logging;
using OpenTelemetry;
using OpenTelemetry.Metrics;

namespace ScalableMetrics.Benchmarks;

/// <summary>
/// One service's measurements served over HTTP three ways, each by its own <see cref="WebApplication"/>
/// (Kestrel on 127.0.0.1, a free port) in this process: ScalableMetrics (<c>AddMeter</c> and its
/// <c>MapScalableMetrics</c>), and OpenTelemetry's Prometheus exporter
/// (<c>OpenTelemetry.Exporter.Prometheus.AspNetCore</c>) with its response cache off and on at its
/// default. The measurements are a <see cref="Counter{T}"/> of <see cref="CounterSeries"/> tag sets
/// and a <see cref="Histogram{T}"/> recorded with every tenth of them, recorded once, after every
/// listener has started, so that all three hold the same series.
/// </summary>
/// <remarks>
/// <para>Each endpoint extension is called through its class here (ours is <c>MapScalableMetrics</c>,
/// OpenTelemetry's <c>MapPrometheusScrapingEndpoint</c>), so that the benchmark reads the same
/// whatever the usings.</para>
/// <para>Ours compresses with gzip itself when asked; OpenTelemetry's does not, so its endpoint's
/// branch goes through ASP.NET Core's response compression, the way its users would add gzip
/// (with <c>application/openmetrics-text</c> added to the compressed types).</para>
/// </remarks>
internal sealed class HttpScrapeServices : IAsyncDisposable
{
    /// <summary>How many tag sets the counter has.</summary>
    public const int CounterSeries = 10_000;

    /// <summary>How many tag sets the histogram has: every tenth of the counter's.</summary>
    public const int HistogramSeries = CounterSeries / 10;

    /// <summary>The counter's family name, in Prometheus' naming, in every exposition.</summary>
    public const string CounterFamily = "bench_requests";

    private const string MeterName = "ScalableMetrics.Benchmarks.HttpScrape";
    private const string ScrapePath = "/metrics";

    private readonly List<WebApplication> _apps = [];
    private WebApplication? _ours;
    private readonly List<MeterProvider> _providers = [];
    private Meter? _meter;

    private HttpScrapeServices()
    {
    }

    /// <summary>How many collections ours has run, every format together: fewer than its scrapes where concurrent ones were coalesced.</summary>
    public int OurCollections => _ours?.Services.GetRequiredService<ScalableMetrics.Exporter.PrometheusScraper>().Collections ?? 0;

    /// <summary>Every way to scrape the three services: ours in each of its three formats, OpenTelemetry's in its two, each with and without gzip.</summary>
    public IReadOnlyList<ScrapeTarget> Targets { get; private set; } = [];

    /// <summary>Starts the three services, then records the measurements.</summary>
    public static async Task<HttpScrapeServices> StartAsync()
    {
        var services = new HttpScrapeServices();
        try
        {
            Uri ours = await services.StartOursAsync();
            Uri cacheOff = await services.StartOpenTelemetryAsync(cacheMilliseconds: 0);
            Uri cacheOn = await services.StartOpenTelemetryAsync(cacheMilliseconds: null);
            services.Record();
            services.Targets =
            [
                .. Formats(ours, "ours", protobuf: true),
                .. Formats(cacheOff, "opentelemetry cache off", protobuf: false),
                .. Formats(cacheOn, "opentelemetry cache on", protobuf: false),
            ];
            return services;
        }
        catch
        {
            await services.DisposeAsync();
            throw;
        }
    }

    /// <summary>The target named <paramref name="name"/>.</summary>
    public ScrapeTarget Target(string name) => Targets.Single(t => t.Name == name);

    /// <summary>A client for the scrapes: keeps its connections, decompresses nothing (the bytes on the wire are what is read).</summary>
    public static HttpClient NewClient() => new(new SocketsHttpHandler { AutomaticDecompression = DecompressionMethods.None, UseProxy = false, MaxConnectionsPerServer = 64 });

    /// <summary>Scrapes <paramref name="target"/>, reading the body to its end as a scraper does, and
    /// returns its length as sent (compressed, where it was).</summary>
    public static async Task<int> ScrapeAsync(HttpClient client, ScrapeTarget target)
    {
        using HttpRequestMessage request = target.NewRequest();
        using HttpResponseMessage response = await client.SendAsync(request, HttpCompletionOption.ResponseHeadersRead);
        response.EnsureSuccessStatusCode();
        await using Stream body = await response.Content.ReadAsStreamAsync();
        byte[] buffer = ArrayPool<byte>.Shared.Rent(64 * 1024);
        try
        {
            int length = 0;
            int read;
            while ((read = await body.ReadAsync(buffer)) > 0)
            {
                length += read;
            }

            return length;
        }
        finally
        {
            ArrayPool<byte>.Shared.Return(buffer);
        }
    }

    /// <summary>
    /// Scrapes every target once and checks what it answered: the content type asked for, gzip
    /// where asked (only there), and every counter series in the body, inflated; so that a target
    /// that answered an error, another format or an empty body is not measured as a fast one.
    /// </summary>
    public async Task CheckAsync(HttpClient client)
    {
        foreach (ScrapeTarget target in Targets)
        {
            using HttpRequestMessage request = target.NewRequest();
            using HttpResponseMessage response = await client.SendAsync(request);
            response.EnsureSuccessStatusCode();
            string contentType = response.Content.Headers.ContentType?.ToString() ?? string.Empty;
            if (!contentType.StartsWith(target.ContentType, StringComparison.Ordinal))
            {
                throw new InvalidOperationException($"{target.Name}: answered {contentType}, expected {target.ContentType}.");
            }

            bool gzip = response.Content.Headers.ContentEncoding.Contains("gzip");
            if (gzip != target.Gzip)
            {
                throw new InvalidOperationException($"{target.Name}: Content-Encoding is '{string.Join(",", response.Content.Headers.ContentEncoding)}'.");
            }

            byte[] body = await response.Content.ReadAsByteArrayAsync();
            if (gzip)
            {
                using var inflated = new MemoryStream();
                using (var stream = new GZipStream(new MemoryStream(body), CompressionMode.Decompress))
                {
                    stream.CopyTo(inflated);
                }

                body = inflated.ToArray();
            }

            int series = target.ContentType.StartsWith("application/vnd.google.protobuf", StringComparison.Ordinal)
                ? ScrapeBenchmarkRegistry.ProtobufMetricsByFamily(body).GetValueOrDefault(CounterFamily + "_total")
                : ScrapeBenchmarkRegistry.CounterSamples(body);
            if (series != CounterSeries)
            {
                throw new InvalidOperationException($"{target.Name}: the body holds {series} counter series, expected {CounterSeries}.");
            }
        }
    }

    public async ValueTask DisposeAsync()
    {
        foreach (WebApplication app in _apps)
        {
            await app.StopAsync();
            await app.DisposeAsync();
        }

        _providers.ForEach(static p => p.Dispose());
        _meter?.Dispose();
    }

    private static IEnumerable<ScrapeTarget> Formats(Uri endpoint, string name, bool protobuf)
    {
        foreach (bool gzip in (bool[])[false, true])
        {
            string suffix = gzip ? " gzip" : string.Empty;
            yield return new ScrapeTarget($"{name} text{suffix}", endpoint, ScrapeTarget.TextAccept, gzip, "text/plain");
            yield return new ScrapeTarget($"{name} openmetrics{suffix}", endpoint, ScrapeTarget.OpenMetricsAccept, gzip, "application/openmetrics-text");
            if (protobuf)
            {
                yield return new ScrapeTarget($"{name} protobuf{suffix}", endpoint, ScrapeTarget.ProtobufAccept, gzip, "application/vnd.google.protobuf");
            }
        }
    }

    private static WebApplicationBuilder NewBuilder()
    {
        WebApplicationBuilder builder = WebApplication.CreateSlimBuilder();
        builder.WebHost.UseUrls("http://127.0.0.1:0");
        builder.Logging.ClearProviders();
        return builder;
    }

    private async Task<Uri> StartOursAsync()
    {
        WebApplicationBuilder builder = NewBuilder();
        builder.Services.AddScalableMetrics(options =>
        {
            options.AddMeter(MeterName);
            options.Registry.MaxSeriesPerInstrument = 2 * CounterSeries;
        });
        WebApplication app = builder.Build();
        _ours = app;
        ScalableMetricsEndpointRouteBuilderExtensions.MapScalableMetrics(app, ScrapePath);
        return await StartAsync(app);
    }

    private async Task<Uri> StartOpenTelemetryAsync(int? cacheMilliseconds)
    {
        MeterProvider provider = Sdk.CreateMeterProviderBuilder()
            .AddMeter(MeterName)
            .AddView("*", new MetricStreamConfiguration { CardinalityLimit = 2 * CounterSeries })
            .AddPrometheusExporter(options =>
            {
                if (cacheMilliseconds is { } milliseconds)
                {
                    options.ScrapeResponseCacheDurationMilliseconds = milliseconds;
                }
            })
            .Build();
        _providers.Add(provider);

        WebApplicationBuilder builder = NewBuilder();
        builder.Services.AddResponseCompression(options => options.MimeTypes = [.. ResponseCompressionDefaults.MimeTypes, "application/openmetrics-text"]);
        WebApplication app = builder.Build();
        PrometheusExporterEndpointRouteBuilderExtensions.MapPrometheusScrapingEndpoint(
            app,
            ScrapePath,
            provider,
            configureBranchedPipeline: static branch => branch.UseResponseCompression(),
            optionsName: null);
        return await StartAsync(app);
    }

    private async Task<Uri> StartAsync(WebApplication app)
    {
        _apps.Add(app);
        await app.StartAsync();
        return new Uri(new Uri(app.Urls.Single()), ScrapePath);
    }

    private void Record()
    {
        _meter = new Meter(MeterName);
        Counter<long> counter = _meter.CreateCounter<long>("bench.requests", "{request}");
        Histogram<double> histogram = _meter.CreateHistogram<double>("bench.duration", "ms");
        for (int i = 0; i < CounterSeries; i++)
        {
            var route = new KeyValuePair<string, object?>("http.route", "/api/items/" + (i % 100));
            var instance = new KeyValuePair<string, object?>("instance", (long)i);
            counter.Add(i + 1, route, instance);
            if (i % 10 == 0)
            {
                histogram.Record(i % 1_000, route, instance);
            }
        }
    }
}
