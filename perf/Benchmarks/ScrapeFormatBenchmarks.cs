// Results: perf/results/README.md, "scrape formats". Run:
//   dotnet run -c Release --project perf/Benchmarks -- --filter '*' --anyCategories scrape-format --job short

using BenchmarkDotNet.Attributes;
using ScalableMetrics.Exporter;

namespace ScalableMetrics.Benchmarks;

/// <summary>
/// The cost of one scrape of 10,000 counter series and 100 histogram series (15 buckets each) in each
/// format the endpoint serves: the text format 0.0.4 (the baseline), OpenMetrics 1.0 (what a
/// Prometheus server asks for by default) and the protobuf exposition (what it asks for with native
/// histograms on); and OpenMetrics with UTF-8 names (<c>escaping=allow-utf-8</c> under
/// <see cref="PrometheusNameTranslation.NoUTF8EscapingWithSuffixes"/>: every name quoted).
/// Each returns the body's length; the setup checks that each body holds every series.
/// </summary>
[MemoryDiagnoser]
[BenchmarkCategory("scrape-format")]
public class ScrapeFormatBenchmarks
{
    private const int CounterSeries = 10_000;
    private const int HistogramSeries = 100;

    private PrometheusScraper _scraper = null!;
    private PrometheusScraper _utf8Scraper = null!;

    [GlobalSetup]
    public void Setup()
    {
        MetricRegistry registry = ScrapeBenchmarkRegistry.WithCounterSeries(CounterSeries);

        PartitionedHistogram histogram = registry.CreateHistogram("bench.duration", "s", null, [0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10]);
        for (int i = 0; i < HistogramSeries; i++)
        {
            histogram.Record(i / 100.0, new KeyValuePair<string, object?>("http.route", "/api/items/" + i));
        }

        _scraper = new PrometheusScraper(registry, "ScalableMetrics.Benchmarks");
        int metrics = ScrapeBenchmarkRegistry.ProtobufMetricsByFamily(Serve(PrometheusExpositionFormat.Protobuf)).Values.Sum();
        if (metrics != CounterSeries + HistogramSeries)
        {
            throw new InvalidOperationException($"The protobuf scrape holds {metrics} series, expected {CounterSeries + HistogramSeries}.");
        }

        foreach (PrometheusExpositionFormat format in (PrometheusExpositionFormat[])[PrometheusExpositionFormat.Text, PrometheusExpositionFormat.OpenMetrics])
        {
            int lines = ScrapeBenchmarkRegistry.CounterSamples(Serve(format));
            if (lines != CounterSeries)
            {
                throw new InvalidOperationException($"The {format} scrape holds {lines} counter series, expected {CounterSeries}.");
            }
        }

        _utf8Scraper = new PrometheusScraper(registry, "ScalableMetrics.Benchmarks") { NameTranslation = PrometheusNameTranslation.NoUTF8EscapingWithSuffixes };
        string utf8 = System.Text.Encoding.UTF8.GetString(ScrapeBenchmarkRegistry.Serve(_utf8Scraper, PrometheusExpositionFormat.OpenMetrics, Naming.EscapingScheme.AllowUtf8));
        int utf8Lines = utf8.Split('\n').Count(static line => line.StartsWith("{\"bench.requests_total\",", StringComparison.Ordinal));
        if (utf8Lines != CounterSeries)
        {
            throw new InvalidOperationException($"The UTF-8 OpenMetrics scrape holds {utf8Lines} counter series, expected {CounterSeries}.");
        }
    }

    [Benchmark(Baseline = true, Description = "text 0.0.4")]
    public int Text() => ScrapeBenchmarkRegistry.ServedLength(_scraper, PrometheusExpositionFormat.Text);

    [Benchmark(Description = "OpenMetrics 1.0")]
    public int OpenMetrics() => ScrapeBenchmarkRegistry.ServedLength(_scraper, PrometheusExpositionFormat.OpenMetrics);

    [Benchmark(Description = "protobuf (delimited MetricFamily)")]
    public int Protobuf() => ScrapeBenchmarkRegistry.ServedLength(_scraper, PrometheusExpositionFormat.Protobuf);

    [Benchmark(Description = "OpenMetrics 1.0, UTF-8 names")]
    public int OpenMetricsUtf8() => ScrapeBenchmarkRegistry.ServedLength(_utf8Scraper, PrometheusExpositionFormat.OpenMetrics, Naming.EscapingScheme.AllowUtf8);

    private byte[] Serve(PrometheusExpositionFormat format) => ScrapeBenchmarkRegistry.Serve(_scraper, format);
}
