namespace ScalableMetrics.Exporter.Prometheus.Scraping;

/// <summary>
/// One exposition format's collection in flight: a scrape that arrives while it runs joins it and
/// gets its body (the same bytes); one that arrives when none runs starts the next.
/// </summary>
/// <remarks>
/// <para>The collection runs on the thread pool, detached from the scrapes that wait for it, so a
/// scrape that stops waiting (timed out, aborted) neither cancels it nor leaves it half written:
/// it runs to its end, and its body serves the scrapes still waiting and those that join it
/// before it ends. A scrape that arrives after it ended starts a fresh one, so a scraper's
/// sequential scrapes never read older values than its previous one.</para>
/// <para>Thread-safe.</para>
/// </remarks>
internal sealed class ScrapeCoalescer
{
    private readonly Func<Task<byte[]>> _collect;
    private readonly Lock _gate = new();
    private Task<byte[]>? _inFlight;
    private int _collections;

    /// <summary>Creates the coalescer of the collection <paramref name="collect"/>, which must write a whole body of its format.</summary>
    public ScrapeCoalescer(Func<Task<byte[]>> collect) => _collect = collect;

    /// <summary>How many collections were started: fewer than the scrapes when scrapes were coalesced. For tests.</summary>
    public int Collections => Volatile.Read(ref _collections);

    /// <summary>The collection in flight, or a new one if none is; its result is shared by every scrape that joins it: do not change the array.</summary>
    public Task<byte[]> JoinOrStart()
    {
        lock (_gate)
        {
            if (_inFlight is null || _inFlight.IsCompleted)
            {
                _collections++;
                Task<byte[]> collection = Task.Run(_collect);

                // Observed here, so a failure that no scrape waited for is not an unobserved exception.
                _ = collection.ContinueWith(static c => _ = c.Exception, CancellationToken.None, TaskContinuationOptions.OnlyOnFaulted | TaskContinuationOptions.ExecuteSynchronously, TaskScheduler.Default);
                _inFlight = collection;
            }

            return _inFlight;
        }
    }
}
