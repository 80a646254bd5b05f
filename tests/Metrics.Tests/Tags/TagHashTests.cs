using ScalableMetrics.Tags;

namespace ScalableMetrics.Tests.Tags;

/// <summary>
/// Tag hashing a caller cannot collide at will: structured families of values (the ones that
/// collided under <see cref="long.GetHashCode"/>) spread over as many hash codes as values.
/// Asserts the distribution, not a timing.
/// </summary>
public class TagHashTests
{
    private const int Values = 20_000;

    public static TheoryData<string> Families => ["(k << 32) | k", "k << 32", "-k ^ (k << 32)", "k as double", "k * 2^40 as double", "string k", "two keys, values swapped"];

    [Theory]
    [MemberData(nameof(Families))]
    public void StructuredValuesSpreadOverDistinctHashCodes(string family)
    {
        var hashes = new HashSet<int>();
        for (long k = 0; k < Values; k++)
        {
            KeyValuePair<string, object?>[] tags = family switch
            {
                "(k << 32) | k" => [new("v", (k << 32) | k)],
                "k << 32" => [new("v", k << 32)],
                "-k ^ (k << 32)" => [new("v", -k ^ (k << 32))],
                "k as double" => [new("v", (double)k)],
                "k * 2^40 as double" => [new("v", k * 1099511627776.0)],
                "string k" => [new("v", k.ToString(System.Globalization.CultureInfo.InvariantCulture))],
                _ => [new("a", k), new("b", Values - k)],
            };
            hashes.Add(TagSetComparer.Hash(tags));
        }

        // A random 32-bit hash of 20,000 values collides about 0.05 times; allow a few.
        Assert.True(hashes.Count >= Values - 10, $"{Values} values gave {hashes.Count} distinct hash codes.");
    }

    [Fact]
    public void EqualValuesOfAnyWidthHashAlike()
    {
        Assert.Equal(TagSetComparer.Hash([new("v", 7)]), TagSetComparer.Hash([new("v", 7L)]));
        Assert.Equal(TagSetComparer.Hash([new("v", (byte)7)]), TagSetComparer.Hash([new("v", 7UL)]));
        Assert.Equal(TagSetComparer.Hash([new("v", 1.5f)]), TagSetComparer.Hash([new("v", 1.5)]));
        Assert.Equal(TagSetComparer.Hash([new("v", 0.0)]), TagSetComparer.Hash([new("v", -0.0)]));
        Assert.Equal(TagSetComparer.Hash([new("v", double.NaN)]), TagSetComparer.Hash([new("v", BitConverter.Int64BitsToDouble(-1))]));
    }

    [Fact]
    public void StructuredValuesStillFindTheirSeries()
    {
        PartitionedCounter counter = new MetricRegistry(new MetricRegistryOptions { MaxSeriesPerInstrument = 5_000 }).CreateCounter("test.hash");
        for (long k = 0; k < 5_000; k++)
        {
            counter.Add(1, new KeyValuePair<string, object?>("v", (k << 32) | k));
            counter.Add(1, new KeyValuePair<string, object?>("v", (k << 32) | k));
        }

        Assert.Equal(5_000, counter.SeriesCount);
        Assert.All(counter.Collect(), r => Assert.Equal(2, r.Value));
    }
}
