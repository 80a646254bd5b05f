// Results (2 logical cores): perf/results/README.md, section "Instruments (issue 10)". Run:
//   dotnet run -c Release --project perf/Benchmarks -- --filter '*' --anyCategories histogram-scrape --job short

using BenchmarkDotNet.Attributes;
using ScalableMetrics.Exporter;
using ScalableMetrics.Scaling.Implementations;

namespace ScalableMetrics.Benchmarks;

/// <summary>
/// Scraping a histogram of 1, 100 and 10,000 series (default boundaries: 16 buckets each):
/// <see cref="PartitionedHistogram.Collect"/> (the registry's part, the baseline), and the whole
/// Prometheus text scrape of that registry through <see cref="PrometheusScraper.ScrapeAsync(CancellationToken)"/>
/// (each series written as 16 cumulative <c>_bucket</c> samples, <c>_sum</c> and <c>_count</c>).
/// </summary>
/// <remarks>Every series has recorded one value in each bucket, so no bucket reads 0. Each series
/// has one integer tag. The setup checks that the scrape holds every series' 16 <c>_bucket</c>
/// samples, so that an exporter which left histograms out is not measured as a fast one.</remarks>
[MemoryDiagnoser]
[BenchmarkCategory("histogram-scrape")]
public class HistogramScrapeBenchmarks
{
    private PartitionedHistogram _histogram = null!;
    private PrometheusScraper _scraper = null!;

    [Params(1, 100, 10_000)]
    public int Series { get; set; }

    [GlobalSetup]
    public void Setup()
    {
        var registry = new MetricRegistry(new MetricRegistryOptions { MaxSeriesPerInstrument = Math.Max(2, Series) });
        _histogram = registry.CreateHistogram("bench.duration", "ms");
        for (int i = 0; i < Series; i++)
        {
            HistogramSeries series = _histogram.Bind(new KeyValuePair<string, object?>("series", (long)i));
            foreach (double value in HistogramValues.Cycle)
            {
                series.Record(value);
            }
        }

        _scraper = new PrometheusScraper(registry, "ScalableMetrics.Benchmarks");
        if (_histogram.Collect().Count != Series)
        {
            throw new InvalidOperationException($"Expected {Series} series.");
        }

        // A scrape that left the histogram out would be measured as a very fast scrape.
        string text = System.Text.Encoding.UTF8.GetString(_scraper.ScrapeAsync().GetAwaiter().GetResult());
        int bucketSamples = text.Split('\n').Count(line => line.Contains("_bucket{", StringComparison.Ordinal));
        int expected = Series * HistogramValues.Count;
        if (bucketSamples != expected)
        {
            throw new InvalidOperationException($"The scrape holds {bucketSamples} _bucket samples, expected {expected} (16 per series).");
        }
    }

    [Benchmark(Baseline = true, Description = "histogram.Collect()")]
    public int Collect() => _histogram.Collect().Count;

    [Benchmark(Description = "PrometheusScraper.ScrapeAsync()")]
    public int Scrape() => _scraper.ScrapeAsync().GetAwaiter().GetResult().Length;
}
