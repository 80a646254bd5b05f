using System.Diagnostics.Metrics;
using System.Globalization;
using System.Text;
using ScalableMetrics.Exporter.Prometheus.Exposition;

namespace ScalableMetrics.Exporter.Tests.Prometheus.Scraping;

/// <summary>Concurrent scrapes of one scraper: coalesced onto one collection, each body whole, none older than the previous.</summary>
public sealed class ConcurrentScrapeTests
{
    private const string Scope = "test.scrapes";
    private const int Scrapers = 16;

    [Fact]
    public async Task ScrapesThatArriveDuringACollectionGetItsBodyAndStartNone()
    {
        var registry = new MetricRegistry();
        registry.CreateCounter("hits").Add(5);
        using var gate = new ManualResetEventSlim();
        registry.CreateObservableGauge("slow", () => Slow(gate));
        var scraper = new PrometheusScraper(registry, Scope);

        // Each call joins before its first await: the first starts the collection, which the
        // gauge holds until every other has joined it.
        Task<byte[]>[] scrapes = [.. Enumerable.Range(0, Scrapers).Select(_ => scraper.ScrapeSharedAsync(ExpositionFormat.Text, Timeout.InfiniteTimeSpan, CancellationToken.None))];
        gate.Set();
        byte[][] bodies = await Task.WhenAll(scrapes);

        Assert.Equal(1, scraper.Collections);
        Assert.All(bodies, body => Assert.Same(bodies[0], body));
        Assert.Equal("5", PrometheusText.Single(PrometheusText.Parse(Encoding.UTF8.GetString(bodies[0])), "hits_total").Value);

        // The public scrape hands each caller its own copy; one after the collection ended starts another.
        byte[] copy = await scraper.ScrapeAsync();
        Assert.Equal(2, scraper.Collections);
        Assert.Equal(bodies[0], copy);
        Assert.NotSame(bodies[0], copy);
    }

    [Fact]
    public async Task ConcurrentScrapesDuringConcurrentRecordsAreWholeAndNeverGoBack()
    {
        var registry = new MetricRegistry();
        PartitionedCounter counter = registry.CreateCounter("requests");
        PartitionedHistogram histogram = registry.CreateHistogram("latency", boundaries: [1, 10, 100]);

        // One record before the writers start: a scrape of a registry with no series yet is an
        // empty body (valid, but not what this test reads), and a scraper may run first.
        counter.Add(1);
        histogram.Record(0);
        using var writing = new CancellationTokenSource();
        using var start = new Barrier(Environment.ProcessorCount + Scrapers);
        long[] written = new long[Environment.ProcessorCount];
        Task[] writers = [.. Enumerable.Range(0, Environment.ProcessorCount).Select(w => Task.Factory.StartNew(() =>
        {
            start.SignalAndWait();
            while (!writing.IsCancellationRequested)
            {
                counter.Add(1);
                histogram.Record(written[w] % 200);
                written[w]++;
            }
        }, TaskCreationOptions.LongRunning))];
        var scraper = new PrometheusScraper(registry, Scope);
        int scrapes = 0;
        Task[] scraperTasks = [.. Enumerable.Range(0, Scrapers).Select(_ => Task.Factory.StartNew(async () =>
        {
            start.SignalAndWait();
            double previous = 0;
            for (int i = 0; i < 20; i++)
            {
                string text = Encoding.UTF8.GetString(await scraper.ScrapeAsync());
                Interlocked.Increment(ref scrapes);
                Assert.EndsWith("\n", text, StringComparison.Ordinal);
                IReadOnlyList<PrometheusSample> samples = PrometheusText.Parse(text);
                double count = PrometheusText.Single(samples, "requests_total").NumericValue;
                Assert.True(count >= previous, $"requests_total went down from {previous} to {count}");
                previous = count;
                Assert.Equal("+Inf", samples.Last(s => s.Name == "latency_bucket").Labels["le"]);
                Assert.Single(samples, s => s.Name == "latency_count");
            }
        }, TaskCreationOptions.LongRunning).Unwrap())];

        await Task.WhenAll(scraperTasks);
        writing.Cancel();
        await Task.WhenAll(writers);

        Assert.Equal(Scrapers * 20, scrapes);
        Assert.InRange(scraper.Collections, 1, scrapes);
        IReadOnlyList<PrometheusSample> final = PrometheusText.Parse(Encoding.UTF8.GetString(await scraper.ScrapeAsync()));
        Assert.Equal((written.Sum() + 1).ToString(CultureInfo.InvariantCulture), PrometheusText.Single(final, "requests_total").Value);
    }

    [Fact]
    public async Task AScrapePastItsTimeoutFailsAndIsLoggedAndTheNextOneWorks()
    {
        var registry = new MetricRegistry();
        registry.CreateCounter("hits").Add(2);
        using var gate = new ManualResetEventSlim();
        registry.CreateObservableGauge("slow", () => Slow(gate));
        var logger = new ListLogger();
        var scraper = new PrometheusScraper(registry, Scope, logger: logger);

        // The gauge holds the collection until released: this scrape cannot be in time.
        await Assert.ThrowsAsync<TimeoutException>(() => scraper.ScrapeSharedAsync(ExpositionFormat.Text, TimeSpan.FromMilliseconds(50), CancellationToken.None));
        Assert.Contains(logger.Messages, m => m.Contains("scrape timeout of 0.05 s", StringComparison.Ordinal));

        gate.Set();
        IReadOnlyList<PrometheusSample> samples = PrometheusText.Parse(Encoding.UTF8.GetString(await scraper.ScrapeAsync()));
        Assert.Equal("2", PrometheusText.Single(samples, "hits_total").Value);
        Assert.Equal("7", PrometheusText.Single(samples, "slow").Value);
    }

    [Fact]
    public async Task DisposingTheScraperEndsTheWaitingScrapesAndRefusesLaterOnes()
    {
        var registry = new MetricRegistry();
        using var gate = new ManualResetEventSlim();
        registry.CreateObservableGauge("slow", () => Slow(gate));
        var scraper = new PrometheusScraper(registry, Scope);

        Task<byte[]> waiting = scraper.ScrapeAsync();
        scraper.Dispose();
        await Assert.ThrowsAsync<ObjectDisposedException>(() => waiting);
        await Assert.ThrowsAsync<ObjectDisposedException>(() => scraper.ScrapeAsync());
        scraper.Dispose();
        gate.Set();
    }

    [Theory]
    [InlineData(null, 10.0)]
    [InlineData("", 10.0)]
    [InlineData("abc", 10.0)]
    [InlineData("0", 10.0)]
    [InlineData("-3", 10.0)]
    [InlineData("NaN", 10.0)]
    [InlineData("9.5", 9.5)]
    [InlineData("2", 2.0)]
    [InlineData("1e9", 86400.0)]
    [InlineData("Infinity", 86400.0)]
    public void TheScrapeTimeoutHeaderIsReadInSecondsWithTheOptionAsFallback(string? header, double seconds) =>
        Assert.Equal(TimeSpan.FromSeconds(seconds), ScalableMetrics.Exporter.Prometheus.Scraping.ScrapeTimeoutHeader.Parse(header, TimeSpan.FromSeconds(10)));

    [Theory]
    [InlineData(0.0)]
    [InlineData(-1.0)]
    [InlineData(86401.0)]
    public void AScrapeTimeoutNotPositiveOrPastADayMakesTheOptionsInvalid(double seconds)
    {
        Microsoft.Extensions.Options.ValidateOptionsResult result = new ScalableMetrics.Exporter.Hosting.ScalableMetricsOptionsValidator().Validate(null, new ScalableMetricsOptions { ScrapeTimeout = TimeSpan.FromSeconds(seconds) });
        Assert.True(result.Failed);
        Assert.Contains("ScrapeTimeout", result.FailureMessage, StringComparison.Ordinal);
    }

    private static IEnumerable<Measurement<long>> Slow(ManualResetEventSlim gate)
    {
        gate.Wait();
        return [new Measurement<long>(7)];
    }
}
