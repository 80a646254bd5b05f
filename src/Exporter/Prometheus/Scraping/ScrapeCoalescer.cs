using System.IO.Compression;

namespace ScalableMetrics.Exporter.Prometheus.Scraping;

/// <summary>
/// One exposition format's collection in flight: a scrape that arrives while it runs joins it and
/// gets its body (the same bytes, from the same buffer); one that arrives when none runs starts
/// the next.
/// </summary>
/// <remarks>
/// <para>The collection runs on the thread pool, detached from the scrapes that wait for it, so a
/// scrape that stops waiting (timed out, aborted) neither cancels it nor leaves it half written:
/// it runs to its end, and its body serves the scrapes still waiting and those that join it
/// before it ends. A scrape that arrives after it ended starts a fresh one, so a scraper's
/// sequential scrapes never read older values than its previous one.</para>
/// <para>The body is written into a buffer this coalescer lends and takes back when no scrape
/// reads it any more (<see cref="CoalescedCollection"/>): a steady scraper's collections write
/// into the same buffer, rather than each into a new one the size of the body, and overlapping
/// responses each hold their own collection's. At most <see cref="MaxSpareBuffers"/> buffers
/// are kept spare, and as many for compressed bodies: a scrape that asks for gzip gets the
/// collection's body compressed once, for every such scrape of the collection
/// (<see cref="GzipAsync"/>).</para>
/// <para>A collection that starts while the previous one's responses are still being written
/// waits for them, at most <see cref="PreviousResponsesWait"/>, before it reads: the scrapes that
/// arrive meanwhile join it, and it reads after every one of them arrived.</para>
/// <para>Thread-safe.</para>
/// </remarks>
internal sealed class ScrapeCoalescer
{
    /// <summary>How many buffers are kept for later collections when no body holds them: enough for a
    /// collection to start while the previous one's responses are still written, and the one before's.</summary>
    public const int MaxSpareBuffers = 2;

    /// <summary>
    /// How long a collection waits, before it reads anything, for the previous collection's
    /// responses to be written: the scrapes that arrive meanwhile join it, and the previous body's
    /// buffer is free for it to write into. Bounded, so that a slow client delays the next
    /// collection by this at most, never fails it.
    /// </summary>
    public static readonly TimeSpan DefaultPreviousResponsesWait = TimeSpan.FromMilliseconds(250);

    // The first body's buffer; later ones start at the size of the last body, with room to grow.
    private const int InitialBufferSize = 16 * 1024;

    private readonly Func<byte[], Task<ArraySegment<byte>>> _collect;
    private readonly Lock _gate = new();
    private readonly Stack<byte[]> _spareBuffers = new();
    private readonly Stack<byte[]> _spareGzipBuffers = new();
    private CoalescedCollection? _inFlight;
    private int _collections;
    private int _lastBodyLength;
    private int _lastGzipLength;

    /// <summary>Creates the coalescer of the collection <paramref name="collect"/>, which must write a
    /// whole body of its format into the buffer it is given (growing it into a new one as it needs)
    /// and return the buffer it wrote and the body's length, and never touch that buffer again.</summary>
    public ScrapeCoalescer(Func<byte[], Task<ArraySegment<byte>>> collect) => _collect = collect;

    /// <summary>How long a collection waits for the previous one's responses (<see cref="DefaultPreviousResponsesWait"/>; tests wait for ever).</summary>
    public TimeSpan PreviousResponsesWait { get; init; } = DefaultPreviousResponsesWait;

    /// <summary>How many collections were started: fewer than the scrapes when scrapes were coalesced. For tests.</summary>
    public int Collections => Volatile.Read(ref _collections);

    /// <summary>
    /// The collection in flight, or a new one if none is, with a reference taken for the caller,
    /// who must let go of it (<see cref="CoalescedCollection.Release"/>) once, when it has written
    /// the body or stopped waiting for it.
    /// </summary>
    public CoalescedCollection JoinOrStart()
    {
        lock (_gate)
        {
            if (_inFlight is null || _inFlight.Ended)
            {
                _collections++;
                var collection = new CoalescedCollection(this);

                // Where many scrapers read a large body, writing the responses takes longer than
                // the collection: a collection that started at once would serve the one scrape that
                // arrived first, and write into a new buffer while the previous one is still sent.
                Task? previousWritten = _inFlight is { References: > 0 } previous ? previous.Written() : null;
                Task completion = Task.Run(() => RunAsync(collection, previousWritten));

                // Observed here, so a failure that no scrape waited for is not an unobserved exception.
                _ = completion.ContinueWith(static c => _ = c.Exception, CancellationToken.None, TaskContinuationOptions.OnlyOnFaulted | TaskContinuationOptions.ExecuteSynchronously, TaskScheduler.Default);
                collection.Start(completion);
                _inFlight = collection;
            }

            _inFlight.References++;
            return _inFlight;
        }
    }

    /// <summary>Lets go of one reference to <paramref name="collection"/>; the last, once it has ended, gives its buffer back.</summary>
    internal void Release(CoalescedCollection collection)
    {
        lock (_gate)
        {
            if (--collection.References == 0 && collection.Ended)
            {
                KeepBuffers(collection);
                collection.SignalWritten();
            }
        }
    }

    /// <summary>
    /// <paramref name="collection"/>'s body compressed with gzip (<see cref="CompressionLevel.Fastest"/>,
    /// as ASP.NET Core's response compression does), started by the first caller, on the thread
    /// pool, and shared by the rest: concurrent scrapes that ask for gzip compress a collection once,
    /// not once each. The caller holds a reference.
    /// </summary>
    internal Task<ArraySegment<byte>> GzipAsync(CoalescedCollection collection)
    {
        lock (_gate)
        {
            if (collection.Gzip is null)
            {
                _spareGzipBuffers.TryPop(out byte[]? spare);
                int size = Math.Max(InitialBufferSize, _lastGzipLength + (_lastGzipLength / 8));
                ReadOnlyMemory<byte> body = collection.Body;
                collection.Gzip = Task.Run(() => Compress(body, spare ?? new byte[size]));
            }

            return collection.Gzip;
        }
    }

    private async Task RunAsync(CoalescedCollection collection, Task? previousWritten)
    {
        if (previousWritten is not null)
        {
            // Past the wait, collected all the same: the previous responses keep their buffer.
            await previousWritten.WaitAsync(PreviousResponsesWait).ConfigureAwait(ConfigureAwaitOptions.SuppressThrowing);
        }

        byte[]? spare;
        int size;
        lock (_gate)
        {
            _spareBuffers.TryPop(out spare);
            size = Math.Max(InitialBufferSize, _lastBodyLength + (_lastBodyLength / 8));
        }

        ArraySegment<byte> body = default;
        try
        {
            body = await _collect(spare ?? new byte[size]).ConfigureAwait(false);
        }
        finally
        {
            lock (_gate)
            {
                collection.End(body);
                if (body.Array is not null)
                {
                    _lastBodyLength = body.Count;
                }

                // Every scrape that waited has stopped waiting (timed out, aborted): nobody reads it.
                if (collection.References == 0)
                {
                    KeepBuffers(collection);
                    collection.SignalWritten();
                }
            }
        }
    }

    private ArraySegment<byte> Compress(ReadOnlyMemory<byte> body, byte[] buffer)
    {
        var output = new BufferStream(buffer);
        using (var gzip = new GZipStream(output, CompressionLevel.Fastest, leaveOpen: true))
        {
            gzip.Write(body.Span);
        }

        ArraySegment<byte> compressed = output.Detach();
        Volatile.Write(ref _lastGzipLength, compressed.Count);
        return compressed;
    }

    // Nothing reads the collection's buffers any more: kept for later collections, up to the spares' limit.
    private void KeepBuffers(CoalescedCollection collection)
    {
        Keep(_spareBuffers, collection.TakeBuffer());
        Keep(_spareGzipBuffers, collection.TakeGzipBuffer());
    }

    private static void Keep(Stack<byte[]> spares, byte[]? buffer)
    {
        if (buffer is not null && spares.Count < MaxSpareBuffers)
        {
            spares.Push(buffer);
        }
    }
}
