using ScalableMetrics.Tags;

namespace ScalableMetrics.Tests.Tags;

/// <summary>
/// A thread's recent tag sets find a remembered tag set by its very objects, by equal values of
/// the same types, in any order, and never a tag set they do not equal: a miss is always
/// allowed, a wrong index never. Each test runs on a thread of its own, so that it starts with
/// no entries and leaves none to another test.
/// </summary>
public class RecentTagSetsTests
{
    private static readonly KeyValuePair<string, object?>[] s_request =
    [
        new("http.request.method", "GET"),
        new("url.scheme", "https"),
        new("network.protocol.version", "1.1"),
        new("http.route", "/api/orders/{id}"),
        new("http.response.status_code", 200),
    ];

    [Fact]
    public void TheSameObjectsFindTheirIndexAndNothingIsFoundBeforeItIsRemembered() => OnNewThread(() =>
    {
        long owner = RecentTagSets.NewOwner();
        Assert.Equal(-1, RecentTagSets.Find(owner, s_request));

        RecentTagSets.Remember(owner, s_request, 7);

        Assert.Equal(7, RecentTagSets.Find(owner, s_request));
        Assert.Equal(7, RecentTagSets.Find(owner, s_request.ToArray()));
    });

    [Fact]
    public void NewStringsAndNewBoxesOfTheSameValuesFindIt() => OnNewThread(() =>
    {
        long owner = RecentTagSets.NewOwner();
        RecentTagSets.Remember(owner, s_request, 3);

        for (int i = 0; i < 3; i++)
        {
            Assert.Equal(3, RecentTagSets.Find(owner, Rebuilt(s_request)));
        }
    });

    [Fact]
    public void EveryOrderFindsIt() => OnNewThread(() =>
    {
        long owner = RecentTagSets.NewOwner();
        RecentTagSets.Remember(owner, s_request, 5);

        foreach (KeyValuePair<string, object?>[] order in Rotations(s_request).Concat(Rotations([.. s_request.Reverse()])))
        {
            Assert.Equal(5, RecentTagSets.Find(owner, order));
            Assert.Equal(5, RecentTagSets.Find(owner, Rebuilt(order)));
        }
    });

    [Theory]
    [InlineData("another value")]
    [InlineData("another type")]
    [InlineData("another key")]
    [InlineData("a tag fewer")]
    [InlineData("a tag more")]
    [InlineData("another owner")]
    public void TagsThatDifferFindNothing(string difference) => OnNewThread(() =>
    {
        long owner = RecentTagSets.NewOwner();
        RecentTagSets.Remember(owner, s_request, 1);
        KeyValuePair<string, object?>[] tags = [.. s_request];
        long asked = owner;
        switch (difference)
        {
            case "another value": tags[4] = new("http.response.status_code", 201); break;
            case "another type": tags[4] = new("http.response.status_code", 200L); break;
            case "another key": tags[3] = new("http_route", "/api/orders/{id}"); break;
            case "a tag fewer": tags = tags[..4]; break;
            case "a tag more": tags = [.. tags, new("error.type", "timeout")]; break;
            default: asked = RecentTagSets.NewOwner(); break;
        }

        Assert.Equal(-1, RecentTagSets.Find(asked, tags));
        Assert.Equal(1, RecentTagSets.Find(owner, s_request));
    });

    [Theory]
    [InlineData(1)]
    [InlineData(2)]
    [InlineData(3)]
    [InlineData(4)]
    [InlineData(5)]
    [InlineData(6)]
    [InlineData(7)]
    [InlineData(8)]
    public void AnotherObjectInAnyPositionIsNotTheSameReferences(int count) => OnNewThread(() =>
    {
        // Values a value hash samples alike (a string's length, its middle and last characters;
        // keys are not sampled), so that the lookup reaches the entry and compares its references
        // with tags that differ in one key or one value, in each position in turn.
        KeyValuePair<string, object?>[] remembered = [.. Enumerable.Range(0, count).Select(i => new KeyValuePair<string, object?>($"key{i}", $"a{i}cd"))];
        for (int position = 0; position < count; position++)
        {
            foreach (bool key in (bool[])[true, false])
            {
                long owner = RecentTagSets.NewOwner();
                RecentTagSets.Remember(owner, remembered, 9);
                KeyValuePair<string, object?>[] tags = [.. remembered];
                tags[position] = key ? new($"other{position}", tags[position].Value) : new(tags[position].Key, $"b{position}cd");
                Assert.Equal(RecentTagSets.ValueHash(owner, remembered), RecentTagSets.ValueHash(owner, tags));

                Assert.Equal(-1, RecentTagSets.Find(owner, tags));
                Assert.Equal(9, RecentTagSets.Find(owner, remembered));
            }
        }
    });

    [Fact]
    public void ARepeatedKeyNeverPairsWithOneTagTwice() => OnNewThread(() =>
    {
        long owner = RecentTagSets.NewOwner();
        RecentTagSets.Remember(owner, [new("a", "x"), new("b", "x")], 1);

        Assert.Equal(-1, RecentTagSets.Find(owner, [new("a", "x"), new("a", "x")]));
        Assert.Equal(-1, RecentTagSets.Find(owner, [new("b", "x"), new("b", "x")]));
        Assert.Equal(1, RecentTagSets.Find(owner, [new("b", "x"), new("a", "x")]));
    });

    [Fact]
    public void TagSetsPastTheLimitAreNeitherRememberedNorFound() => OnNewThread(() =>
    {
        long owner = RecentTagSets.NewOwner();
        KeyValuePair<string, object?>[] many = [.. Enumerable.Range(0, RecentTagSets.MaxTags + 1).Select(i => new KeyValuePair<string, object?>($"key{i}", i))];
        RecentTagSets.Remember(owner, many, 2);
        Assert.Equal(-1, RecentTagSets.Find(owner, many));

        RecentTagSets.Remember(owner, many.AsSpan(0, RecentTagSets.MaxTags), 4);
        Assert.Equal(4, RecentTagSets.Find(owner, many.AsSpan(0, RecentTagSets.MaxTags)));
    });

    [Fact]
    public void ManyMoreTagSetsThanEntriesNeverFindAnotherOnesIndex() => OnNewThread(() =>
    {
        long owner = RecentTagSets.NewOwner();
        int count = RecentTagSets.Entries * 16;

        // Routes of one length whose sampled characters repeat, so that many share a value hash.
        KeyValuePair<string, object?>[][] sets = [.. Enumerable.Range(0, count).Select(i => new KeyValuePair<string, object?>[]
        {
            new("http.route", $"/r/{i:D5}/x"),
            new("http.response.status_code", i % 3 == 0 ? 200 : i % 3 == 1 ? 200L : "200"),
        })];
        for (int round = 0; round < 3; round++)
        {
            for (int i = 0; i < count; i++)
            {
                int found = RecentTagSets.Find(owner, sets[i]);
                Assert.True(found == -1 || found == i, $"Tag set {i} found index {found}.");
                if (found == -1)
                {
                    RecentTagSets.Remember(owner, sets[i], i);
                }

                Assert.Equal(i, RecentTagSets.Find(owner, sets[i]));
                Assert.Equal(i, RecentTagSets.Find(owner, Rebuilt(sets[i])));
            }
        }
    });

    [Fact]
    public void AThreadWhoseLookupsKeepMissingRestsAndLooksAgainWithinRestingLookups() => OnNewThread(() =>
    {
        long owner = RecentTagSets.NewOwner();
        RecentTagSets.Remember(owner, s_request, 9);
        for (int i = 0; i < RecentTagSets.Patience; i++)
        {
            Assert.Equal(-1, RecentTagSets.Find(owner, [new("user", i)]));
        }

        // Resting: the remembered tag set is found again by the lookup that looks, at the latest
        // the Resting-th, and from then on every time.
        int lookups = 1;
        while (RecentTagSets.Find(owner, s_request) == -1 && lookups <= RecentTagSets.Resting)
        {
            lookups++;
        }

        Assert.InRange(lookups, 1, RecentTagSets.Resting);
        Assert.Equal(9, RecentTagSets.Find(owner, s_request));
        Assert.Equal(9, RecentTagSets.Find(owner, s_request));
    });

    [Fact]
    public void RememberingAndFindingAllocateNothingOnceTheThreadHasEntries() => OnNewThread(() =>
    {
        long owner = RecentTagSets.NewOwner();
        KeyValuePair<string, object?>[][] sets = [.. Enumerable.Range(0, 256).Select(i => Rebuilt(s_request))];
        RecentTagSets.Remember(owner, s_request, 0);
        int next = 0;

        int found = 0;
        AllocationAssert.DoesNotAllocate(() => RecentTagSets.Remember(owner, sets[next++ & 255], 0));
        AllocationAssert.DoesNotAllocate(() => found |= RecentTagSets.Find(owner, sets[next++ & 255]));
        Assert.Equal(0, found);
    });

    [Theory]
    [InlineData(200, 200, true)]
    [InlineData(200, 200L, false)]
    [InlineData(200, "200", false)]
    [InlineData(0.0, -0.0, true)]
    [InlineData(double.NaN, double.NaN, true)]
    [InlineData(1.5f, 1.5, false)]
    [InlineData(true, true, true)]
    [InlineData(true, false, false)]
    public void SameValueIsEqualityWithinOneType(object remembered, object given, bool same) =>
        Assert.Equal(same, RecentTagSets.SameValue(remembered, given));

    [Fact]
    public void ValuesSameValueFindsEqualHashAlike()
    {
        long owner = RecentTagSets.NewOwner();
        Assert.Equal(RecentTagSets.ValueHash(owner, [new("v", 0.0)]), RecentTagSets.ValueHash(owner, [new("v", -0.0)]));
        Assert.Equal(RecentTagSets.ValueHash(owner, [new("v", double.NaN)]), RecentTagSets.ValueHash(owner, [new("v", BitConverter.Int64BitsToDouble(-1))]));
        Assert.Equal(RecentTagSets.ValueHash(owner, s_request), RecentTagSets.ValueHash(owner, Rebuilt(s_request)));
        Assert.Equal(RecentTagSets.ValueHash(owner, s_request), RecentTagSets.ValueHash(owner, [.. s_request.Reverse()]));
    }

    // New instances of every string and box: equal values, no object in common.
    internal static KeyValuePair<string, object?>[] Rebuilt(ReadOnlySpan<KeyValuePair<string, object?>> tags)
    {
        var copy = new KeyValuePair<string, object?>[tags.Length];
        for (int i = 0; i < tags.Length; i++)
        {
            object? value = tags[i].Value switch
            {
                string text => new string(text.AsSpan()),
                int number => (object)number,
                long number => (object)number,
                object other => other,
                null => null,
            };
            copy[i] = new(new string(tags[i].Key.AsSpan()), value);
        }

        return copy;
    }

    private static IEnumerable<KeyValuePair<string, object?>[]> Rotations(KeyValuePair<string, object?>[] tags) =>
        Enumerable.Range(0, tags.Length).Select(shift => tags.Skip(shift).Concat(tags.Take(shift)).ToArray());

    private static void OnNewThread(Action test)
    {
        Exception? failure = null;
        var thread = new Thread(() =>
        {
            try
            {
                test();
            }
            catch (Exception e)
            {
                failure = e;
            }
        });
        thread.Start();
        thread.Join();
        if (failure is not null)
        {
            throw new InvalidOperationException("The test failed on its thread.", failure);
        }
    }
}
