using ScalableMetrics.SeriesTables;

namespace ScalableMetrics.Tests.SeriesTables;

/// <summary>The series table's two open-addressing tables, below the table: what a seeded hash never shows.</summary>
public class SeriesIndexTests
{
    [Fact]
    public void IdentityIndexGivesEveryCandidateOfAHashAndNoOther()
    {
        var index = new SeriesIdentityIndex(1_000);

        // Colliding hashes (same slot, same hash) and neighbours, past several growths (which ask
        // for each entry's hash again).
        static int HashOf(int i) => i % 3 == 0 ? 42 : i;
        for (int i = 0; i < 1_000; i++)
        {
            index.Add(HashOf(i), i, HashOf);
        }

        var found = new List<int>();
        foreach (int candidate in index.Find(42))
        {
            found.Add(candidate);
        }

        Assert.Equal(Enumerable.Range(0, 1_000).Where(i => i % 3 == 0 || i == 42), found.Order());
        Assert.Equal([7], ToList(index.Find(7)));
        Assert.Empty(ToList(index.Find(-5)));
    }

    [Fact]
    public void IdentityIndexKeepsEveryEntryAcrossGrowthsAndRemovalsAtTheLargestIndex()
    {
        // The largest index the limit allows (its tag has the fewest bits), entries removed and
        // added again: every hash finds its own series, none another's.
        const int MaxIndex = 50_000;
        var index = new SeriesIdentityIndex(MaxIndex);
        static int HashOf(int i) => HashCode.Combine(i, "identity");
        int[] indexes = [.. Enumerable.Range(0, 20_000).Select(i => MaxIndex - (i * 2))];
        foreach (int i in indexes)
        {
            index.Add(HashOf(i), i, HashOf);
        }

        foreach (int i in indexes.Where(i => i % 3 == 0))
        {
            Assert.True(index.Remove(HashOf(i), i));
            Assert.False(index.Remove(HashOf(i), i));
        }

        foreach (int i in indexes.Where(i => i % 3 == 0).Take(1_000))
        {
            index.Add(HashOf(i), i, HashOf);
        }

        var reAdded = indexes.Where(i => i % 3 == 0).Take(1_000).ToHashSet();
        foreach (int i in indexes)
        {
            List<int> found = ToList(index.Find(HashOf(i)));
            if (i % 3 != 0 || reAdded.Contains(i))
            {
                Assert.Contains(i, found);
            }
            else
            {
                Assert.DoesNotContain(i, found);
            }
        }
    }

    [Fact]
    public void TagLookupFindsEverySeriesAndAliasAfterGrowth()
    {
        var registry = new MetricRegistry();
        var arena = new ScalableMetrics.Cells.PartitionArena(registry.WritePath, 2);
        var table = new SeriesByTags();
        var created = new List<CounterSeries>();
        for (int i = 0; i < 500; i++)
        {
            var series = new CounterSeries(TagSet.Create(new KeyValuePair<string, object?>("i", i)), arena);
            table.Add(series);
            created.Add(series);
        }

        table.AddAlias(TagSet.Create(new KeyValuePair<string, object?>("i", "7")), created[7]);
        for (int i = 0; i < 500; i++)
        {
            Assert.Same(created[i], table.Find([new("i", i)]));
            Assert.Same(created[i], table.Find([new("i", (long)i)]));
        }

        Assert.Same(created[7], table.Find([new("i", "7")]));
        Assert.Null(table.Find([new("i", "8")]));
        Assert.Null(table.Find([new("i", 500)]));
        Assert.Null(table.Find([new("j", 1)]));
    }

    private static List<int> ToList(SeriesIdentityIndex.Candidates candidates)
    {
        var list = new List<int>();
        foreach (int candidate in candidates)
        {
            list.Add(candidate);
        }

        return list;
    }
}
