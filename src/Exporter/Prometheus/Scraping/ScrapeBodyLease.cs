namespace ScalableMetrics.Exporter.Prometheus.Scraping;

/// <summary>
/// One scrape's hold on its collection's body (<see cref="CoalescedCollection"/>): the body to
/// write while it is held, and, when disposed, the reference let go of, once, however often it
/// is disposed.
/// </summary>
/// <remarks>Not thread-safe beyond its <see cref="Dispose"/>: one scrape reads it.</remarks>
internal sealed class ScrapeBodyLease : IDisposable
{
    private CoalescedCollection? _collection;

    /// <summary>Holds <paramref name="collection"/>'s reference, which the scrape took by joining it; the collection has ended with its body.</summary>
    public ScrapeBodyLease(CoalescedCollection collection)
    {
        _collection = collection;
        Body = collection.Body;
    }

    /// <summary>The scrape's body, shared with the other scrapes of its collection: write it, never change it, and not after <see cref="Dispose"/>.</summary>
    public ReadOnlyMemory<byte> Body { get; }

    /// <summary>The body as an array shared by every scrape of the collection (<see cref="CoalescedCollection.SharedArray"/>), which outlives the lease.</summary>
    /// <exception cref="ObjectDisposedException">The lease is disposed.</exception>
    public byte[] SharedArray()
    {
        CoalescedCollection collection = _collection ?? throw new ObjectDisposedException(nameof(ScrapeBodyLease));
        return collection.SharedArray();
    }

    /// <summary>The body gzip-compressed, once per collection (<see cref="CoalescedCollection.GzipBodyAsync"/>): write it, never change it, and not after <see cref="Dispose"/>.</summary>
    /// <exception cref="ObjectDisposedException">The lease is disposed.</exception>
    public Task<ArraySegment<byte>> GzipBodyAsync()
    {
        CoalescedCollection collection = _collection ?? throw new ObjectDisposedException(nameof(ScrapeBodyLease));
        return collection.GzipBodyAsync();
    }

    /// <summary>Lets go of the body: its buffer may then be written by a later collection.</summary>
    public void Dispose() => Interlocked.Exchange(ref _collection, null)?.Release();
}
