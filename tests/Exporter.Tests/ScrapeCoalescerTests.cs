using System.Runtime.InteropServices;
using ScalableMetrics.Exporter.Prometheus.Scraping;

namespace ScalableMetrics.Exporter.Tests;

/// <summary>
/// A collection that starts while the previous collection's responses are still written waits
/// for them (for a while) before it reads: the scrapes that arrive meanwhile join it, and it
/// writes into the buffer the previous responses let go of.
/// </summary>
public sealed class ScrapeCoalescerTests
{
    [Fact]
    public async Task ScrapesArrivingWhileTheLastResponsesAreWrittenShareTheNextCollection()
    {
        int collected = 0;
        var coalescer = new ScrapeCoalescer(buffer => Task.FromResult(Collect(buffer, ref collected)))
        {
            PreviousResponsesWait = Timeout.InfiniteTimeSpan,
        };

        CoalescedCollection first = coalescer.JoinOrStart();
        await first.Completion;
        byte[] firstBuffer = BufferOf(first);

        // The first body is still being sent: the next collection waits, and both scrapes join it.
        CoalescedCollection second = coalescer.JoinOrStart();
        CoalescedCollection third = coalescer.JoinOrStart();
        Assert.Same(second, third);
        Assert.False(second.Completion.IsCompleted);
        Assert.Equal(1, Volatile.Read(ref collected));

        first.Release();
        await second.Completion;
        Assert.Equal(2, coalescer.Collections);
        Assert.Equal(2, Volatile.Read(ref collected));
        Assert.Same(firstBuffer, BufferOf(second));
        Assert.Equal([2], second.Body.ToArray());
        second.Release();
        third.Release();
    }

    [Fact]
    public async Task AResponseNeverWrittenDelaysTheNextCollectionOnlyForTheWait()
    {
        int collected = 0;
        var coalescer = new ScrapeCoalescer(buffer => Task.FromResult(Collect(buffer, ref collected)))
        {
            PreviousResponsesWait = TimeSpan.FromMilliseconds(1),
        };

        CoalescedCollection held = coalescer.JoinOrStart();
        await held.Completion;
        CoalescedCollection next = coalescer.JoinOrStart();
        await next.Completion;

        // The held body keeps its buffer and its bytes; the next collection wrote elsewhere.
        Assert.NotSame(BufferOf(held), BufferOf(next));
        Assert.Equal([1], held.Body.ToArray());
        Assert.Equal([2], next.Body.ToArray());
        held.Release();
        next.Release();
    }

    // A body of one byte: the collection's number.
    private static ArraySegment<byte> Collect(byte[] buffer, ref int collected)
    {
        buffer[0] = (byte)Interlocked.Increment(ref collected);
        return new ArraySegment<byte>(buffer, 0, 1);
    }

    private static byte[] BufferOf(CoalescedCollection collection) =>
        MemoryMarshal.TryGetArray(collection.Body, out ArraySegment<byte> segment) ? segment.Array! : throw new InvalidOperationException("The body is not an array's.");
}
