using System.Text;
using OpenTelemetry;
using OpenTelemetry.Metrics;

namespace ScalableMetrics.Exporter.Tests.OpenTelemetry;

/// <summary>Scrapes of a registry (read directly) and the exporter's lifecycle: exact sums, one scrape at a time.</summary>
public sealed class PrometheusPullExporterTests
{
    [Fact]
    public async Task OperationDataIsScrapedAsASummaryOfSecondsAndCount()
    {
        using Pipeline pipeline = new();
        OperationData operation = pipeline.Registry.CreateOperationData("job.run", "Jobs run.");
        operation.Record(TimeSpan.FromMilliseconds(1500), new KeyValuePair<string, object?>("job", "a"));
        operation.Record(TimeSpan.FromMilliseconds(500), new KeyValuePair<string, object?>("job", "a"));

        IReadOnlyList<PrometheusSample> samples = PrometheusText.Parse(await pipeline.ScrapeAsync());

        Assert.Equal("2", PrometheusText.Single(samples, "job_run_seconds_sum", ("job", "a"), ("otel_scope_name", pipeline.MeterName)).Value);
        Assert.Equal("2", PrometheusText.Single(samples, "job_run_seconds_count", ("job", "a")).Value);
    }

    [Fact]
    public async Task ScrapeSeesTheExactSumOfConcurrentAdds()
    {
        using Pipeline pipeline = new();
        PartitionedCounter counter = pipeline.Registry.CreateCounter("contended", "{item}", "Contended adds.");
        int threads = Math.Max(4, Environment.ProcessorCount * 2);
        const int AddsPerThread = 100_000;
        using var gate = new Barrier(threads);
        Thread[] workers = [.. Enumerable.Range(0, threads).Select(t => new Thread(() =>
        {
            CounterSeries series = counter.Bind(new KeyValuePair<string, object?>("parity", t % 2));
            gate.SignalAndWait();
            for (int i = 0; i < AddsPerThread; i++)
            {
                series.Increment();
            }
        }))];
        foreach (Thread worker in workers)
        {
            worker.Start();
        }

        foreach (Thread worker in workers)
        {
            worker.Join();
        }

        IReadOnlyList<PrometheusSample> samples = PrometheusText.Parse(await pipeline.ScrapeAsync());

        long total = samples.Where(s => s.Name == "contended_total").Sum(s => long.Parse(s.Value, System.Globalization.CultureInfo.InvariantCulture));
        Assert.Equal((long)threads * AddsPerThread, total);
    }

    [Fact]
    public async Task ConcurrentScrapesEachGetAWholeScrapeAndNeverSeeTheCountGoDown()
    {
        using Pipeline pipeline = new();
        PartitionedCounter counter = pipeline.Registry.CreateCounter("scraped.while.adding", description: "Adds during scrapes.");

        // An instrument without a series is left out: start the series now.
        counter.Add(0);
        for (int i = 0; i < 50; i++)
        {
            pipeline.Registry.CreateCounter($"filler.{i}", description: "Makes each scrape long enough to overlap.").Add(i);
        }

        using var stop = new CancellationTokenSource();
        const long Adds = 200_000;
        Task adder = Task.Run(() =>
        {
            for (long i = 0; i < Adds; i++)
            {
                counter.Add(1);
            }
        });

        async Task<List<long>> ScrapeRepeatedly()
        {
            var seen = new List<long>();
            for (int i = 0; i < 40; i++)
            {
                string text = await pipeline.ScrapeAsync();
                Assert.Equal(1, CountOccurrences(text, "# TYPE scraped_while_adding_total counter\n"));
                Assert.Equal(51, CountOccurrences(text, "# TYPE "));
                seen.Add(long.Parse(PrometheusText.Single(PrometheusText.Parse(text), "scraped_while_adding_total").Value, System.Globalization.CultureInfo.InvariantCulture));
            }

            return seen;
        }

        List<long>[] sequences = await Task.WhenAll(Enumerable.Range(0, 4).Select(_ => Task.Run(ScrapeRepeatedly)));
        await adder;

        foreach (List<long> sequence in sequences)
        {
            for (int i = 1; i < sequence.Count; i++)
            {
                Assert.True(sequence[i] >= sequence[i - 1], $"Scrape {i} saw {sequence[i]} after {sequence[i - 1]}.");
            }
        }

        string last = await pipeline.ScrapeAsync();
        Assert.Equal(Adds.ToString(System.Globalization.CultureInfo.InvariantCulture), PrometheusText.Single(PrometheusText.Parse(last), "scraped_while_adding_total").Value);
    }

    [Fact]
    public async Task ScrapeWithoutAMeterProviderThrows()
    {
        var exporter = new PrometheusPullExporter();

        InvalidOperationException error = await Assert.ThrowsAsync<InvalidOperationException>(() => exporter.ScrapeAsync());
        Assert.Contains("BaseExportingMetricReader", error.Message);
    }

    [Fact]
    public async Task ScrapeAfterTheMeterProviderIsDisposedThrows()
    {
        var exporter = new PrometheusPullExporter();
        MeterProvider provider = Sdk.CreateMeterProviderBuilder().AddReader(new BaseExportingMetricReader(exporter)).Build();
        Assert.NotNull(exporter.Collect);

        provider.Dispose();

        Assert.Null(exporter.Collect);
        await Assert.ThrowsAsync<ObjectDisposedException>(() => exporter.ScrapeAsync());
    }

    [Fact]
    public async Task ACanceledWaitThrowsAndLeavesTheExporterUsable()
    {
        using Pipeline pipeline = new();
        pipeline.Registry.CreateCounter("still.works").Add(1);

        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => pipeline.Scraper.ScrapeAsync(new CancellationToken(canceled: true)));

        Assert.Contains("still_works_total{", await pipeline.ScrapeAsync());
    }

    private static int CountOccurrences(string text, string value)
    {
        int count = 0;
        for (int i = text.IndexOf(value, StringComparison.Ordinal); i >= 0; i = text.IndexOf(value, i + 1, StringComparison.Ordinal))
        {
            count++;
        }

        return count;
    }

    /// <summary>A registry and a scraper of it, under a unique scope name.</summary>
    private sealed class Pipeline : IDisposable
    {
        public Pipeline()
        {
            MeterName = "test.pipeline." + Guid.NewGuid().ToString("N");
            Scraper = new PrometheusScraper(Registry, MeterName);
        }

        public MetricRegistry Registry { get; } = new();

        public PrometheusScraper Scraper { get; }

        public string MeterName { get; }

        public async Task<string> ScrapeAsync() => Encoding.UTF8.GetString(await Scraper.ScrapeAsync());

        public void Dispose()
        {
        }
    }
}
