using ScalableMetrics.Tags;

namespace ScalableMetrics.Tests.Tags;

/// <summary>
/// The string hash cache changes what a lookup costs, never what it finds: every string, cached,
/// a copy of a cached one, or never met, full cache or not, hashes to <see cref="string.GetHashCode()"/>,
/// and equal tags at other references find the same series.
/// </summary>
public class StringHashCacheTests
{
    [Fact]
    public void CachedCopiedAndUnknownStringsHashAsStringGetHashCode()
    {
        var cache = new StringHashCache();
        string cached = "http.response.status_code";
        cache.Add(cached);
        string copy = new(cached.AsSpan());
        Assert.NotSame(cached, copy);

        Assert.Equal(cached.GetHashCode(), cache.Hash(cached));
        Assert.Equal(cached.GetHashCode(), cache.Hash(copy));
        Assert.Equal("never.added.key".GetHashCode(), cache.Hash("never.added.key"));
        Assert.Equal("GET".GetHashCode(), cache.Hash("GET"));
    }

    [Fact]
    public void PastItsSlotsEveryStringStillHashesAsStringGetHashCode()
    {
        var cache = new StringHashCache();
        string[] texts = Enumerable.Range(0, StringHashCache.MaxEntries * 3).Select(i => $"/api/route/{i}").ToArray();
        foreach (string text in texts)
        {
            cache.Add(text);
        }

        Assert.All(texts, text => Assert.Equal(text.GetHashCode(), cache.Hash(text)));
    }

    [Fact]
    public void CopiesOfTheTagsACounterWasCreatedWithFindItsSeries()
    {
        PartitionedCounter counter = new MetricRegistry().CreateCounter("test.string.hash");
        string route = "/api/orders/{id}";
        counter.Add(1, new("http.route", route), new("http.request.method", "GET"));

        // Equal strings at other references, and in another order: the same series.
        counter.Add(2, new(new string("http.request.method".AsSpan()), new string("GET".AsSpan())), new(new string("http.route".AsSpan()), new string(route.AsSpan())));

        Assert.Equal(1, counter.SeriesCount);
        Assert.Equal(3, Assert.Single(counter.Collect()).Value);
    }
}
