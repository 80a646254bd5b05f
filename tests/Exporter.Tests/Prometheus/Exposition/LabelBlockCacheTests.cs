using ScalableMetrics.Exporter.Prometheus.Exposition;

namespace ScalableMetrics.Exporter.Tests.Prometheus.Exposition;

/// <summary>
/// What a writer keeps per series (<see cref="LabelBlockCache{TValue}"/>) is found again whatever
/// order a scrape asks in, is shared by blocks of equal text, and is let go once no scrape writes
/// its series any more.
/// </summary>
public sealed class LabelBlockCacheTests
{
    [Fact]
    public void KeptValuesAreFoundInAnyOrder()
    {
        var cache = new LabelBlockCache<string>();
        LabelBlock[] blocks = Blocks("a", 10);
        foreach (LabelBlock block in blocks)
        {
            cache.Find(block) = block.ToString();
        }

        // Reversed, then with a series inserted in front: each lookup misses its step, never its value.
        LabelBlock[][] orders = [[.. Enumerable.Reverse(blocks)], [Blocks("new", 1)[0], .. blocks]];
        foreach (LabelBlock[] order in orders)
        {
            cache.BeginScrape();
            foreach (LabelBlock block in order)
            {
                ref string? kept = ref cache.Find(block);
                Assert.Equal(block.ToString().StartsWith("route=\"new", StringComparison.Ordinal) ? null : block.ToString(), kept);
                kept ??= block.ToString();
            }
        }
    }

    [Fact]
    public void BlocksOfEqualTextShareAValue()
    {
        var cache = new LabelBlockCache<string>();
        cache.Find(Blocks("a", 1)[0]) = "kept";

        cache.BeginScrape();

        Assert.Equal("kept", cache.Find(Blocks("a", 1)[0]));
    }

    [Fact]
    public void SeriesNoLongerWrittenAreLetGo()
    {
        var cache = new LabelBlockCache<string>();
        foreach (LabelBlock block in Blocks("old", 200))
        {
            cache.Find(block) = "old";
        }

        LabelBlock[] current = Blocks("current", 10);
        for (int scrape = 0; scrape < 2; scrape++)
        {
            cache.BeginScrape();
            foreach (LabelBlock block in current)
            {
                cache.Find(block) ??= "current";
            }
        }

        Assert.Equal(current.Length, cache.Count);
        Assert.Null(cache.Peek(Blocks("old", 1)[0]));
        Assert.Equal("current", cache.Peek(current[3]));
    }

    private static LabelBlock[] Blocks(string prefix, int count) =>
        [.. Enumerable.Range(0, count).Select(i => LabelBlock.Create(new PrometheusTextWriter(), [], [new("route", prefix + i)]))];
}
