namespace ScalableMetrics.Benchmarks;

/// <summary>The registry the scrape benchmarks scrape: <c>bench.requests</c> counter series, one per instance.</summary>
internal static class ScrapeBenchmarkRegistry
{
    /// <summary>The exposed name of the counter's samples.</summary>
    public const string CounterSampleName = "bench_requests_total";

    /// <summary>
    /// A registry whose counter <c>bench.requests</c> has <paramref name="series"/> series
    /// <c>{http.route="/api/items/(i % 100)", instance=i}</c> of value i + 1 (a text line of about 100 bytes each).
    /// </summary>
    public static MetricRegistry WithCounterSeries(int series)
    {
        var registry = new MetricRegistry(new MetricRegistryOptions { MaxSeriesPerInstrument = series });
        PartitionedCounter counter = registry.CreateCounter("bench.requests", "{request}");
        for (int i = 0; i < series; i++)
        {
            counter.Add(i + 1, new KeyValuePair<string, object?>("http.route", "/api/items/" + (i % 100)), new KeyValuePair<string, object?>("instance", (long)i));
        }

        return registry;
    }
}
