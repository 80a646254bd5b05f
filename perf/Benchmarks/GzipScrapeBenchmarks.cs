// No published results yet (the lead measures on a quiet machine). Run:
//   dotnet run -c Release --project perf/Benchmarks -- --filter '*' --anyCategories scrape-gzip --job short

using System.IO.Compression;
using BenchmarkDotNet.Attributes;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Http;
using Microsoft.AspNetCore.ResponseCompression;
using Microsoft.Extensions.DependencyInjection;
using ScalableMetrics.Exporter;
using ScalableMetrics.Exporter.Prometheus.Scraping;

namespace ScalableMetrics.Benchmarks;

/// <summary>
/// The cost of gzip on a Prometheus scrape of 10,000 counter series (text 0.0.4, about 1 MB):
/// the scrape uncompressed (the baseline: the body the endpoint serves), the scrape then a <see cref="GZipStream"/> at
/// <see cref="CompressionLevel.Fastest"/> and at <see cref="CompressionLevel.Optimal"/>, the
/// compression alone over the same bytes, and ASP.NET Core's <c>ResponseCompressionMiddleware</c>
/// (its gzip provider, <see cref="CompressionLevel.Fastest"/> by default) around an endpoint that
/// writes the same bytes, invoked in-process on a <see cref="DefaultHttpContext"/> (no socket).
/// </summary>
/// <remarks>Each benchmark returns the bytes it produced; the setup checks that every gzip body
/// inflates back to the scrape, so that a compressor that wrote nothing is not measured as a fast one.</remarks>
[MemoryDiagnoser]
[BenchmarkCategory("scrape-gzip")]
public class GzipScrapeBenchmarks
{
    private const int Series = 10_000;

    private PrometheusScraper _scraper = null!;
    private byte[] _body = null!;
    private readonly MemoryStream _compressed = new();
    private ResponseCompressionMiddleware _middleware = null!;

    [GlobalSetup]
    public void Setup()
    {
        _scraper = new PrometheusScraper(ScrapeBenchmarkRegistry.WithCounterSeries(Series), "ScalableMetrics.Benchmarks");
        _body = Serve();

        ServiceProvider services = new ServiceCollection().AddOptions().AddLogging().AddResponseCompression().BuildServiceProvider();
        _middleware = new ResponseCompressionMiddleware(
            context =>
            {
                context.Response.ContentType = PrometheusScraper.ContentType;
                return context.Response.Body.WriteAsync(_body).AsTask();
            },
            services.GetRequiredService<IResponseCompressionProvider>());

        int lines = ScrapeBenchmarkRegistry.CounterSamples(_body);
        if (lines != Series)
        {
            throw new InvalidOperationException($"The scrape holds {lines} series, expected {Series}.");
        }

        CheckInflates(GzipFastest(), "GZipStream Fastest");
        CheckInflates(GzipOptimal(), "GZipStream Optimal");
        CheckInflates(ResponseCompression(), "ResponseCompressionMiddleware");
    }

    [Benchmark(Baseline = true, Description = "scrape, uncompressed")]
    public int Scrape() => ScrapeBenchmarkRegistry.ServedLength(_scraper, PrometheusExpositionFormat.Text);

    [Benchmark(Description = "scrape + GZipStream Fastest")]
    public int ScrapeGzipFastest()
    {
        using ScrapeBodyLease lease = ScrapeBenchmarkRegistry.Lease(_scraper, PrometheusExpositionFormat.Text);
        return Compress(lease.Body.Span, CompressionLevel.Fastest);
    }

    [Benchmark(Description = "scrape + GZipStream Optimal")]
    public int ScrapeGzipOptimal()
    {
        using ScrapeBodyLease lease = ScrapeBenchmarkRegistry.Lease(_scraper, PrometheusExpositionFormat.Text);
        return Compress(lease.Body.Span, CompressionLevel.Optimal);
    }

    [Benchmark(Description = "GZipStream Fastest only")]
    public int GzipFastest() => Compress(_body, CompressionLevel.Fastest);

    [Benchmark(Description = "GZipStream Optimal only")]
    public int GzipOptimal() => Compress(_body, CompressionLevel.Optimal);

    [Benchmark(Description = "ResponseCompressionMiddleware (gzip) only")]
    public int ResponseCompression()
    {
        var context = new DefaultHttpContext();
        context.Request.Method = HttpMethods.Get;
        context.Request.Headers.AcceptEncoding = "gzip";
        _compressed.SetLength(0);
        context.Response.Body = _compressed;
        _middleware.Invoke(context).GetAwaiter().GetResult();
        if (context.Response.Headers.ContentEncoding != "gzip")
        {
            throw new InvalidOperationException("The middleware did not compress.");
        }

        return (int)_compressed.Length;
    }

    private byte[] Serve() => ScrapeBenchmarkRegistry.Serve(_scraper, PrometheusExpositionFormat.Text);

    private int Compress(ReadOnlySpan<byte> body, CompressionLevel level)
    {
        _compressed.SetLength(0);
        using (var gzip = new GZipStream(_compressed, level, leaveOpen: true))
        {
            gzip.Write(body);
        }

        return (int)_compressed.Length;
    }

    private void CheckInflates(int length, string what)
    {
        using var inflated = new MemoryStream();
        using (var gzip = new GZipStream(new MemoryStream(_compressed.GetBuffer(), 0, length), CompressionMode.Decompress))
        {
            gzip.CopyTo(inflated);
        }

        if (!inflated.ToArray().AsSpan().SequenceEqual(_body))
        {
            throw new InvalidOperationException($"{what} did not inflate back to the scrape.");
        }
    }
}
