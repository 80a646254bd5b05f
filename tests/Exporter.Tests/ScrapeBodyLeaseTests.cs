using System.Diagnostics.Metrics;
using System.Runtime.InteropServices;
using System.Text;
using ScalableMetrics.Exporter.Prometheus.Exposition;
using ScalableMetrics.Exporter.Prometheus.Scraping;

namespace ScalableMetrics.Exporter.Tests;

/// <summary>
/// A collection's body is served from the buffer it was written in, to every scrape that joined
/// it, and that buffer serves a later collection only once no scrape reads it any more.
/// </summary>
public sealed class ScrapeBodyLeaseTests
{
    private const string Scope = "test.leases";
    private const int Scrapers = 16;

    [Fact]
    public async Task ScrapesOfOneCollectionReadOneBufferNotCopies()
    {
        var registry = new MetricRegistry();
        registry.CreateCounter("hits").Add(5);
        using var gate = new ManualResetEventSlim();
        registry.CreateObservableGauge("slow", () => Slow(gate));
        var scraper = new PrometheusScraper(registry, Scope);

        Task<ScrapeBodyLease>[] waiting = [.. Enumerable.Range(0, Scrapers).Select(_ => scraper.LeaseAsync(ExpositionFormat.Text, Timeout.InfiniteTimeSpan, CancellationToken.None))];
        gate.Set();
        ScrapeBodyLease[] leases = await Task.WhenAll(waiting);

        Assert.Equal(1, scraper.Collections);
        byte[] buffer = BufferOf(leases[0]);
        Assert.All(leases, lease => Assert.Same(buffer, BufferOf(lease)));
        Assert.Contains("hits_total{otel_scope_name=\"test.leases\"} 5\n", Encoding.UTF8.GetString(leases[0].Body.Span), StringComparison.Ordinal);
        Array.ForEach(leases, static lease => lease.Dispose());
    }

    [Fact]
    public async Task ABufferLetGoOfServesTheNextCollection()
    {
        var registry = new MetricRegistry();
        PartitionedCounter hits = registry.CreateCounter("hits");
        hits.Add(1);
        var scraper = new PrometheusScraper(registry, Scope);

        byte[] first;
        using (ScrapeBodyLease lease = await LeaseAsync(scraper))
        {
            first = BufferOf(lease);
        }

        hits.Add(1);
        using ScrapeBodyLease next = await LeaseAsync(scraper);
        Assert.Equal(2, scraper.Collections);
        Assert.Same(first, BufferOf(next));
        Assert.Contains("hits_total{otel_scope_name=\"test.leases\"} 2\n", Encoding.UTF8.GetString(next.Body.Span), StringComparison.Ordinal);
    }

    [Fact]
    public async Task ABodyStillHeldIsNeverWrittenOverByLaterCollections()
    {
        var registry = new MetricRegistry();
        PartitionedCounter hits = registry.CreateCounter("hits");
        hits.Add(1);
        var scraper = new PrometheusScraper(registry, Scope);

        using ScrapeBodyLease held = await LeaseAsync(scraper);
        byte[] before = held.Body.ToArray();
        for (int i = 0; i < 2 * ScrapeCoalescer.MaxSpareBuffers + 2; i++)
        {
            // Longer and longer bodies, so that a buffer reused too early would show it.
            registry.CreateCounter($"more.{i}").Add(i + 1);
            hits.Add(1);
            using ScrapeBodyLease later = await LeaseAsync(scraper);
            Assert.NotSame(BufferOf(held), BufferOf(later));
        }

        Assert.Equal(before, held.Body.ToArray());
    }

    [Fact]
    public async Task AScrapeThatStoppedWaitingLetsGoOfItsCollection()
    {
        var registry = new MetricRegistry();
        registry.CreateCounter("hits").Add(2);
        using var gate = new ManualResetEventSlim();
        registry.CreateObservableGauge("slow", () => Slow(gate));
        var scraper = new PrometheusScraper(registry, Scope);

        // Nobody waits for the collection when it ends: its buffer goes back, to the next one.
        await Assert.ThrowsAsync<TimeoutException>(() => scraper.LeaseAsync(ExpositionFormat.Text, TimeSpan.FromMilliseconds(50), CancellationToken.None));
        gate.Set();
        byte[] buffer;
        using (ScrapeBodyLease lease = await LeaseAsync(scraper))
        {
            buffer = BufferOf(lease);
        }

        using ScrapeBodyLease next = await LeaseAsync(scraper);
        Assert.Same(buffer, BufferOf(next));
    }

    [Fact]
    public async Task DisposingALeaseTwiceLetsGoOfItOnce()
    {
        var registry = new MetricRegistry();
        registry.CreateCounter("hits").Add(1);
        using var gate = new ManualResetEventSlim();
        registry.CreateObservableGauge("slow", () => Slow(gate));
        var scraper = new PrometheusScraper(registry, Scope);

        Task<ScrapeBodyLease> first = scraper.LeaseAsync(ExpositionFormat.Text, Timeout.InfiniteTimeSpan, CancellationToken.None);
        Task<ScrapeBodyLease> second = scraper.LeaseAsync(ExpositionFormat.Text, Timeout.InfiniteTimeSpan, CancellationToken.None);
        gate.Set();
        ScrapeBodyLease disposedTwice = await first;
        using ScrapeBodyLease stillHeld = await second;
        disposedTwice.Dispose();
        disposedTwice.Dispose();

        // Were the second Dispose counted, the held body's buffer would have gone back and be written now.
        byte[] before = stillHeld.Body.ToArray();
        using ScrapeBodyLease later = await LeaseAsync(scraper);
        Assert.NotSame(BufferOf(stillHeld), BufferOf(later));
        Assert.Equal(before, stillHeld.Body.ToArray());
    }

    [Fact]
    public async Task ScrapesOfOneCollectionAskingForGzipShareOneCompressionOfTheBody()
    {
        var registry = new MetricRegistry();
        PartitionedCounter hits = registry.CreateCounter("hits");
        for (int i = 0; i < 100; i++)
        {
            hits.Add(i + 1, new KeyValuePair<string, object?>("instance", i));
        }

        using var gate = new ManualResetEventSlim();
        registry.CreateObservableGauge("slow", () => Slow(gate));
        var scraper = new PrometheusScraper(registry, Scope);

        Task<ScrapeBodyLease> first = scraper.LeaseAsync(ExpositionFormat.Text, Timeout.InfiniteTimeSpan, CancellationToken.None);
        Task<ScrapeBodyLease> second = scraper.LeaseAsync(ExpositionFormat.Text, Timeout.InfiniteTimeSpan, CancellationToken.None);
        gate.Set();
        byte[] compressedBuffer;
        using (ScrapeBodyLease one = await first)
        using (ScrapeBodyLease other = await second)
        {
            ArraySegment<byte> compressed = await one.GzipBodyAsync();
            ArraySegment<byte> again = await other.GzipBodyAsync();
            Assert.Same(compressed.Array, again.Array);
            Assert.Equal(compressed.Count, again.Count);
            Assert.Equal(one.Body.ToArray(), Inflate(compressed));
            compressedBuffer = compressed.Array!;
        }

        // Let go of, the compressed buffer serves the next collection's compression.
        using ScrapeBodyLease next = await LeaseAsync(scraper);
        ArraySegment<byte> nextCompressed = await next.GzipBodyAsync();
        Assert.Same(compressedBuffer, nextCompressed.Array);
        Assert.Equal(next.Body.ToArray(), Inflate(nextCompressed));
    }

    private static byte[] Inflate(ArraySegment<byte> compressed)
    {
        using var inflated = new MemoryStream();
        using (var gzip = new System.IO.Compression.GZipStream(new MemoryStream(compressed.Array!, compressed.Offset, compressed.Count), System.IO.Compression.CompressionMode.Decompress))
        {
            gzip.CopyTo(inflated);
        }

        return inflated.ToArray();
    }

    private static Task<ScrapeBodyLease> LeaseAsync(PrometheusScraper scraper) =>
        scraper.LeaseAsync(ExpositionFormat.Text, Timeout.InfiniteTimeSpan, CancellationToken.None);

    private static byte[] BufferOf(ScrapeBodyLease lease) =>
        MemoryMarshal.TryGetArray(lease.Body, out ArraySegment<byte> segment) ? segment.Array! : throw new InvalidOperationException("The body is not an array's.");

    private static IEnumerable<Measurement<long>> Slow(ManualResetEventSlim gate)
    {
        gate.Wait();
        return [new Measurement<long>(7)];
    }
}
