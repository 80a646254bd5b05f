using Google.Protobuf;
using ScalableMetrics.Exporter;
using ScalableMetrics.Exporter.Prometheus.Exposition;
using ScalableMetrics.Exporter.Prometheus.Scraping;

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

    /// <summary>The body the endpoint serves, as an array to check (copied once per collection).</summary>
    public static byte[] Serve(PrometheusScraper scraper, PrometheusExpositionFormat format) =>
        scraper.ScrapeSharedAsync(ExpositionFormat.Of(format), Timeout.InfiniteTimeSpan, CancellationToken.None).GetAwaiter().GetResult();

    /// <summary>A scrape as the endpoint takes it: the body leased in the buffer its collection wrote, without the public
    /// <c>ScrapeAsync</c>'s copy for its caller; dispose it to give the buffer back.</summary>
    public static ScrapeBodyLease Lease(PrometheusScraper scraper, PrometheusExpositionFormat format) =>
        scraper.LeaseAsync(ExpositionFormat.Of(format), Timeout.InfiniteTimeSpan, CancellationToken.None).GetAwaiter().GetResult();

    /// <summary>The length of a scrape's body as the endpoint takes it (<see cref="Lease"/>).</summary>
    public static int ServedLength(PrometheusScraper scraper, PrometheusExpositionFormat format)
    {
        using ScrapeBodyLease lease = Lease(scraper, format);
        return lease.Body.Length;
    }

    /// <summary>The length of a scrape's body as the endpoint takes it for a scraper that negotiated <paramref name="escaping"/>.</summary>
    public static int ServedLength(PrometheusScraper scraper, PrometheusExpositionFormat format, ScalableMetrics.Naming.EscapingScheme escaping)
    {
        using ScrapeBodyLease lease = scraper.LeaseAsync(ExpositionFormat.Of(format), escaping, filter: null, Timeout.InfiniteTimeSpan, CancellationToken.None).GetAwaiter().GetResult();
        return lease.Body.Length;
    }

    /// <summary>The body of a scrape that negotiated <paramref name="escaping"/>.</summary>
    public static byte[] Serve(PrometheusScraper scraper, PrometheusExpositionFormat format, ScalableMetrics.Naming.EscapingScheme escaping)
    {
        using ScrapeBodyLease lease = scraper.LeaseAsync(ExpositionFormat.Of(format), escaping, filter: null, Timeout.InfiniteTimeSpan, CancellationToken.None).GetAwaiter().GetResult();
        return lease.Body.ToArray();
    }

    /// <summary>How many counter samples a text or OpenMetrics body holds: the setups' check that a body holds every series.</summary>
    public static int CounterSamples(byte[] body) =>
        System.Text.Encoding.UTF8.GetString(body).Split('\n').Count(static line => line.StartsWith(CounterSampleName + "{", StringComparison.Ordinal));

    /// <summary>How many metrics (series) each family of a protobuf body (delimited <c>MetricFamily</c> messages) holds, by family name.</summary>
    public static Dictionary<string, int> ProtobufMetricsByFamily(byte[] body)
    {
        var metrics = new Dictionary<string, int>(StringComparer.Ordinal);
        var input = new CodedInputStream(body);
        while (!input.IsAtEnd)
        {
            var family = new CodedInputStream(input.ReadBytes().ToByteArray());
            string name = string.Empty;
            int count = 0;
            uint tag;
            while ((tag = family.ReadTag()) != 0)
            {
                switch (WireFormat.GetTagFieldNumber(tag))
                {
                    case ProtobufMessages.FamilyName:
                        name = family.ReadString();
                        break;
                    case ProtobufMessages.FamilyMetric:
                        count++;
                        family.SkipLastField();
                        break;
                    default:
                        family.SkipLastField();
                        break;
                }
            }

            metrics[name] = metrics.GetValueOrDefault(name) + count;
        }

        return metrics;
    }
}
