using System.Text;

namespace ScalableMetrics.Exporter.Tests.Prometheus.Sources;

/// <summary>What a scrape shows across a series' removal: the series once more, with what was recorded before the removal's collection, then no sample (Prometheus marks it stale), then a new series of its tags from zero.</summary>
public sealed class RemovalExpositionTests
{
    private static readonly KeyValuePair<string, object?> s_a = new("tenant", "a");
    private static readonly KeyValuePair<string, object?> s_b = new("tenant", "b");

    [Theory]
    [InlineData(PrometheusExpositionFormat.Text)]
    [InlineData(PrometheusExpositionFormat.OpenMetrics)]
    public async Task ARemovedSeriesIsScrapedOnceMoreThenAbsentThenNewFromZero(PrometheusExpositionFormat format)
    {
        var registry = new MetricRegistry();
        PartitionedCounter counter = registry.CreateCounter("jobs");
        var scraper = new PrometheusScraper(registry, "m");
        async Task<IReadOnlyList<PrometheusSample>> Scrape()
        {
            string text = Encoding.UTF8.GetString(await scraper.ScrapeAsync(format));
            return format == PrometheusExpositionFormat.OpenMetrics ? PrometheusText.ParseOpenMetrics(text) : PrometheusText.Parse(text);
        }

        double? Value(IReadOnlyList<PrometheusSample> samples, string tenant) =>
            samples.SingleOrDefault(s => s.Name == "jobs_total" && s.Labels.TryGetValue("tenant", out string? value) && value == tenant)?.NumericValue;

        counter.Add(3, s_a);
        counter.Add(1, s_b);
        Assert.Equal(3, Value(await Scrape(), "a"));

        counter.Add(2, s_a);
        Assert.True(counter.Remove(s_a));
        IReadOnlyList<PrometheusSample> last = await Scrape();
        Assert.Equal(5, Value(last, "a"));

        IReadOnlyList<PrometheusSample> after = await Scrape();
        Assert.Null(Value(after, "a"));
        Assert.Equal(1, Value(after, "b"));

        counter.Add(4, s_a);
        Assert.Equal(4, Value(await Scrape(), "a"));
    }
}
