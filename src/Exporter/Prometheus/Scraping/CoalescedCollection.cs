using System.Diagnostics;

namespace ScalableMetrics.Exporter.Prometheus.Scraping;

/// <summary>
/// One collection of one exposition format and its body, shared by every scrape that joined it
/// (<see cref="ScrapeCoalescer.JoinOrStart"/>): the body is written once, into a buffer the
/// coalescer lends, and every scrape writes its response from that buffer, none from a copy.
/// </summary>
/// <remarks>
/// <para>A scrape that asks for gzip gets the body compressed once per collection
/// (<see cref="GzipBodyAsync"/>), into a buffer the coalescer lends too.</para>
/// <para>Each scrape that joins holds a reference until it has written its response (or stopped
/// waiting) and then lets go of it, once (<see cref="ScrapeBodyLease"/>). The buffer goes back to
/// the coalescer, for a later collection to write into, only when the collection has ended and
/// no scrape holds a reference: never while a response still reads it. The reference count and
/// the end are kept under the coalescer's lock, so a scrape cannot join a collection whose
/// buffer has gone back.</para>
/// <para>Thread-safe.</para>
/// </remarks>
internal sealed class CoalescedCollection
{
    private readonly ScrapeCoalescer _owner;
    private ArraySegment<byte> _body;
    private byte[]? _array;
    private TaskCompletionSource? _written;

    /// <summary>Creates a collection of <paramref name="owner"/>, not yet started.</summary>
    public CoalescedCollection(ScrapeCoalescer owner) => _owner = owner;

    /// <summary>Ends when the body is written; faults when the collection failed.</summary>
    public Task Completion { get; private set; } = Task.CompletedTask;

    /// <summary>The body: valid from <see cref="Completion"/>'s success for as long as the caller holds its reference. Write it, never change it.</summary>
    public ReadOnlyMemory<byte> Body => _body;

    /// <summary>The scrapes that hold a reference. Under the coalescer's lock.</summary>
    internal int References { get; set; }

    /// <summary>Whether the collection has ended, written or failed: a scrape that arrives now starts the next. Under the coalescer's lock.</summary>
    internal bool Ended { get; private set; }

    /// <summary>
    /// The body as an array of its exact length, copied once, on the first call, and the same
    /// array for every caller: for callers that want an array of their own to keep (tests, the
    /// public <c>ScrapeSharedAsync</c>), never for a response. Call it while holding a reference.
    /// </summary>
    public byte[] SharedArray()
    {
        Debug.Assert(Completion.IsCompletedSuccessfully, "The body is read after the collection ended.");
        return Volatile.Read(ref _array) ?? Interlocked.CompareExchange(ref _array, Body.ToArray(), null) ?? _array!;
    }

    /// <summary>The body gzip-compressed, compressed once, by the first scrape that asks, for every scrape of the collection that asks: valid while the caller holds its reference.</summary>
    /// <remarks>Wait for it to its end, without a cancellation: a scrape that stopped waiting and let
    /// go could leave its buffer to be taken back while it is still written.</remarks>
    public Task<ArraySegment<byte>> GzipBodyAsync() => _owner.GzipAsync(this);

    /// <summary>Lets go of one reference taken by <see cref="ScrapeCoalescer.JoinOrStart"/>.</summary>
    public void Release() => _owner.Release(this);

    /// <summary>The compression of the body, once a scrape asked for it. Under the coalescer's lock.</summary>
    internal Task<ArraySegment<byte>>? Gzip { get; set; }

    /// <summary>Sets the task that ends with the collection. Under the coalescer's lock, before any scrape waits.</summary>
    internal void Start(Task completion) => Completion = completion;

    /// <summary>The collection ended: with its body, or none where it failed. Under the coalescer's lock.</summary>
    internal void End(ArraySegment<byte> body)
    {
        _body = body;
        Ended = true;
    }

    /// <summary>
    /// Ends when the collection has ended and no scrape holds a reference any more (every response
    /// written, or given up): what the next collection waits for, for a while
    /// (<see cref="ScrapeCoalescer.DefaultPreviousResponsesWait"/>). Under the coalescer's lock.
    /// </summary>
    internal Task Written()
    {
        _written ??= new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        if (Ended && References == 0)
        {
            _written.TrySetResult();
        }

        return _written.Task;
    }

    /// <summary>Ends <see cref="Written"/>'s task, if one was asked for: the last reference has gone and the collection has ended. Under the coalescer's lock.</summary>
    internal void SignalWritten() => _written?.TrySetResult();

    /// <summary>Takes the body's buffer back, once: the collection has ended and no scrape holds a reference. Under the coalescer's lock.</summary>
    internal byte[]? TakeBuffer()
    {
        Debug.Assert(Ended && References == 0, "A buffer goes back only when nothing can read it.");
        byte[]? buffer = _body.Array;
        _body = default;
        return buffer;
    }

    /// <summary>Takes the compressed body's buffer back, once, if it was compressed and is whole. Under the coalescer's lock, when nothing can read it.</summary>
    internal byte[]? TakeGzipBuffer()
    {
        Debug.Assert(Ended && References == 0, "A buffer goes back only when nothing can read it.");
        byte[]? buffer = Gzip is { IsCompletedSuccessfully: true } gzip ? gzip.Result.Array : null;
        Gzip = null;
        return buffer;
    }
}
