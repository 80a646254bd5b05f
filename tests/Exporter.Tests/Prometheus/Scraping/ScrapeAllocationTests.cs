using System.Diagnostics.Metrics;
using System.Text;
using Microsoft.Extensions.Logging.Abstractions;
using ScalableMetrics.Exporter.Listening;
using ScalableMetrics.Exporter.Prometheus.Exposition;
using ScalableMetrics.Exporter.Prometheus.SelfMetrics;

namespace ScalableMetrics.Exporter.Tests.Prometheus.Scraping;

/// <summary>
/// A collection of a scraper with every source <c>AddScalableMetrics</c> gives it (the hosted
/// registry, the listened meters, the self-metrics' registry) and a <c>target_info</c> allocates,
/// once a first collection has built what it keeps, only the collection's own task and state: no
/// object per family, instrument or series. The self-metrics' callbacks report into tag arrays and
/// series they made at the first collection, the listened meters' families are grouped in kept
/// lists, and the registries' instruments are read without a copy.
/// </summary>
/// <remarks>Measured with <see cref="GC.GetAllocatedBytesForCurrentThread"/> around one collection
/// run on the test thread (<c>PrometheusScraper.CollectAsync(ExpositionFormat, byte[])</c>), with the
/// writers production runs.</remarks>
public sealed class ScrapeAllocationTests
{
    // The collection's task and its state machine: what is left once nothing is made per family.
    private const long MaxBytesPerCollection = 128;

    public static TheoryData<PrometheusExpositionFormat> Formats =>
        [PrometheusExpositionFormat.Text, PrometheusExpositionFormat.OpenMetrics, PrometheusExpositionFormat.Protobuf];

    [Theory]
    [MemberData(nameof(Formats))]
    public void ACollectionWithSelfMetricsAllocatesOnlyItsTaskOnceWarm(PrometheusExpositionFormat format)
    {
        string prefix = "ScrapeAllocation" + Guid.NewGuid().ToString("N");
        using var listened = new MeterListenerHost([prefix + ".*"], "app", () => new MetricRegistry(), NullLogger.Instance);
        listened.Start();
        using var meter = new Meter(prefix + ".Service", "1.0");
        using var other = new Meter(prefix + ".Library");
        Counter<long> requests = meter.CreateCounter<long>("requests", "{request}");
        Histogram<double> duration = meter.CreateHistogram<double>("duration", "ms");
        Counter<long> sameFamily = other.CreateCounter<long>("requests", "{request}");
        for (int i = 0; i < 300; i++)
        {
            var route = new KeyValuePair<string, object?>("http.route", "/api/items/" + (i % 30));
            var instance = new KeyValuePair<string, object?>("instance", (long)i);
            requests.Add(i + 1, route, instance);
            if (i % 10 == 0)
            {
                duration.Record(i % 100, route, instance);
                sameFamily.Add(1, route);
            }
        }

        var hosted = new MetricRegistry();
        hosted.CreateCounter("jobs", "{job}").Add(3, new KeyValuePair<string, object?>("queue", "a"));
        var self = new SelfMetricsRegistry(hosted, "app", "2.0", listened);
        using var scraper = new PrometheusScraper(hosted, "app", "2.0", NullLogger<PrometheusScraper>.Instance, listened, selfMetrics: self)
        {
            ResourceAttributes = [new("service.name", "allocation")],
        };
        ExpositionFormat of = ExpositionFormat.Of(format);
        byte[] buffer = new byte[1 << 20];

        // The first collections make the label blocks, the self-metrics' series (the scrape
        // duration's after the first collection ended) and grow the kept lists.
        ArraySegment<byte> body = default;
        for (int i = 0; i < 3; i++)
        {
            body = Collect(scraper, of, buffer);
        }

        // As in AllocationAssert's rounds, one collection can see a one-off allocation of the
        // runtime's own on this thread, which the next does not: the least of three.
        long least = long.MaxValue;
        for (int round = 0; round < 3; round++)
        {
            long before = GC.GetAllocatedBytesForCurrentThread();
            body = Collect(scraper, of, buffer);
            least = Math.Min(least, GC.GetAllocatedBytesForCurrentThread() - before);
        }

        ReadOnlySpan<byte> written = body.AsSpan();
        Assert.True(written.IndexOf("target_info"u8) >= 0, "No target_info: not the scraper meant.");
        Assert.True(written.IndexOf("scalablemetrics_series_limit"u8) >= 0, "No self-metrics: not the scraper meant.");
        Assert.True(written.IndexOf(Encoding.UTF8.GetBytes(prefix + ".Library")) >= 0, "No second listened meter: not the scraper meant.");
        Assert.True(written.IndexOf("duration"u8) >= 0, "No listened histogram: not the scraper meant.");
        Assert.True(least <= MaxBytesPerCollection, $"A steady {format} collection of {body.Count} bytes allocated {least} bytes on the scraping thread.");
    }

    private static ArraySegment<byte> Collect(PrometheusScraper scraper, ExpositionFormat format, byte[] buffer)
    {
        Task<ArraySegment<byte>> collection = scraper.CollectAsync(format, buffer);
        Assert.True(collection.IsCompletedSuccessfully, "The collection waited: it was not run on this thread alone.");
        return collection.Result;
    }
}
