using System.Diagnostics.Metrics;
using System.Net;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Routing;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;
using ScalableMetrics.Exporter.Prometheus.Exposition;
using ScalableMetrics.Exporter.Prometheus.Sources;

namespace ScalableMetrics.Exporter.Tests.Prometheus.Scraping;

/// <summary>The scrape endpoint answers 503, never hangs, when a scrape overruns its timeout or the service stops.</summary>
public sealed class ScrapeEndpointAvailabilityTests
{
    [Fact]
    public async Task AScrapePastThePrometheusTimeoutHeaderGets503AndTheNextOne200()
    {
        using var gate = new ManualResetEventSlim();
        await using WebApplication app = await StartAsync(gate);
        using var client = new HttpClient { BaseAddress = new Uri(Assert.Single(app.Urls)) };

        using var late = new HttpRequestMessage(HttpMethod.Get, "/metrics");
        late.Headers.Add("X-Prometheus-Scrape-Timeout-Seconds", "0.1");
        using HttpResponseMessage timedOut = await client.SendAsync(late);
        Assert.Equal(HttpStatusCode.ServiceUnavailable, timedOut.StatusCode);

        gate.Set();
        using HttpResponseMessage next = await client.GetAsync("/metrics");
        Assert.Equal(HttpStatusCode.OK, next.StatusCode);
        Assert.Equal("7", PrometheusText.Single(PrometheusText.Parse(await next.Content.ReadAsStringAsync()), "slow").Value);
    }

    [Fact]
    public async Task TheOptionIsTheTimeoutWhenTheHeaderIsAbsent()
    {
        using var gate = new ManualResetEventSlim();
        await using WebApplication app = await StartAsync(gate, TimeSpan.FromMilliseconds(100));
        using var client = new HttpClient { BaseAddress = new Uri(Assert.Single(app.Urls)) };

        using HttpResponseMessage timedOut = await client.GetAsync("/metrics");
        Assert.Equal(HttpStatusCode.ServiceUnavailable, timedOut.StatusCode);
        gate.Set();
    }

    [Fact]
    public async Task ScrapesWaitingWhenTheApplicationStopsAndScrapesAfterGet503()
    {
        using var gate = new ManualResetEventSlim();
        await using WebApplication app = await StartAsync(gate);
        using var client = new HttpClient { BaseAddress = new Uri(Assert.Single(app.Urls)) };

        Task<HttpResponseMessage> waiting = client.GetAsync("/metrics");
        app.Services.GetRequiredService<IHostApplicationLifetime>().StopApplication();
        using HttpResponseMessage stopped = await waiting;
        Assert.Equal(HttpStatusCode.ServiceUnavailable, stopped.StatusCode);
        using HttpResponseMessage after = await client.GetAsync("/metrics");
        Assert.Equal(HttpStatusCode.ServiceUnavailable, after.StatusCode);
        gate.Set();
    }

    [Fact]
    public async Task AScrapeOfADisposedScraperGets503()
    {
        using var gate = new ManualResetEventSlim(initialState: true);
        await using WebApplication app = await StartAsync(gate);
        using var client = new HttpClient { BaseAddress = new Uri(Assert.Single(app.Urls)) };

        using HttpResponseMessage before = await client.GetAsync("/metrics");
        Assert.Equal(HttpStatusCode.OK, before.StatusCode);
        app.Services.GetRequiredService<PrometheusScraper>().Dispose();
        using HttpResponseMessage after = await client.GetAsync("/metrics");
        Assert.Equal(HttpStatusCode.ServiceUnavailable, after.StatusCode);
    }

    // A failed collection is answered 500 and logged as an error, once per cause (the exception's
    // type and message), not at every scrape: the scrapes that fail alike write one line.
    [Fact]
    public async Task AFailedCollectionGets500AndIsLoggedOncePerCause()
    {
        var log = new CapturedLog();
        var failing = new FailingSource { Message = "the source is broken" };
        WebApplicationBuilder builder = WebApplication.CreateSlimBuilder(["--urls", "http://127.0.0.1:0"]);
        builder.Logging.AddProvider(log);
        builder.Services.AddSingleton<IScrapeSource>(failing);
        builder.Services.AddScalableMetrics(o => o.MeterName = "test.availability." + Guid.NewGuid().ToString("N"));
        await using WebApplication app = builder.Build();
        app.MapScalableMetrics();
        await app.StartAsync();
        using var client = new HttpClient { BaseAddress = new Uri(Assert.Single(app.Urls)) };

        for (int i = 0; i < 3; i++)
        {
            using HttpResponseMessage failed = await client.GetAsync("/metrics");
            Assert.Equal(HttpStatusCode.InternalServerError, failed.StatusCode);
        }

        failing.Message = "the source is still broken";
        for (int i = 0; i < 2; i++)
        {
            using HttpResponseMessage failed = await client.GetAsync("/metrics");
            Assert.Equal(HttpStatusCode.InternalServerError, failed.StatusCode);
        }

        List<CapturedLog.Entry> errors = [.. log.Entries.Where(e => e.Category.StartsWith("ScalableMetrics", StringComparison.Ordinal) && e.Level >= LogLevel.Warning)];
        Assert.Equal(2, errors.Count);
        Assert.All(errors, e =>
        {
            Assert.Equal((LogLevel.Error, 31, "ScalableMetrics.Exporter.PrometheusScraper"), (e.Level, e.EventId.Id, e.Category));
            Assert.Contains("answered 500", e.Message, StringComparison.Ordinal);
            Assert.IsType<InvalidOperationException>(e.Exception);
        });
        Assert.Contains("InvalidOperationException: the source is broken.", errors[0].Message, StringComparison.Ordinal);
        Assert.Contains("InvalidOperationException: the source is still broken.", errors[1].Message, StringComparison.Ordinal);
    }

    private static async Task<WebApplication> StartAsync(ManualResetEventSlim gate, TimeSpan? scrapeTimeout = null)
    {
        WebApplicationBuilder builder = WebApplication.CreateSlimBuilder(["--urls", "http://127.0.0.1:0"]);
        builder.Services.AddScalableMetrics(o =>
        {
            o.MeterName = "test.availability." + Guid.NewGuid().ToString("N");
            o.ScrapeTimeout = scrapeTimeout ?? o.ScrapeTimeout;
        });
        WebApplication app = builder.Build();
        app.Services.GetRequiredService<MetricRegistry>().CreateObservableGauge("slow", () => Slow(gate));
        app.MapScalableMetrics();
        await app.StartAsync();
        return app;
    }

    private static IEnumerable<Measurement<long>> Slow(ManualResetEventSlim gate)
    {
        gate.Wait();
        return [new Measurement<long>(7)];
    }

    private sealed class FailingSource : IScrapeSource
    {
        public volatile string Message = string.Empty;

        public ValueTask WriteAsync(ExpositionWriter output, HashSet<string> takenNames, CancellationToken cancellationToken) =>
            throw new InvalidOperationException(Message);
    }
}
