using ScalableMetrics.Tests.Naming;
namespace ScalableMetrics.Tests.SeriesTables;

/// <summary>The registry's limits: exact under concurrency, refused with a clear error, never a silent drop.</summary>
public class LimitTests
{
    [StorageTheory]
    [MemberData(nameof(Storages.All), MemberType = typeof(Storages))]
    public void ThreadsFloodingNewTagSetsMakeExactlyTheLimitPlusTheOverflowSeries(string storage)
    {
        const int Limit = 50;
        const int PerThread = 2_000;
        int threads = Math.Max(4, Environment.ProcessorCount);
        for (int round = 0; round < 5; round++)
        {
            var options = Storages.Options(storage);
            options.MaxSeriesPerInstrument = Limit;
            PartitionedCounter counter = new MetricRegistry(options).CreateCounter("test.flood");
            using var gate = new Barrier(threads);
            Thread[] writers = [.. Enumerable.Range(0, threads).Select(t => new Thread(() =>
            {
                gate.SignalAndWait();
                for (int i = 0; i < PerThread; i++)
                {
                    // Every thread makes new tag sets; the first ones race for the last slots.
                    counter.Add(1, new KeyValuePair<string, object?>("user", (t * PerThread) + i));
                }
            }))];
            foreach (Thread writer in writers)
            {
                writer.Start();
            }

            foreach (Thread writer in writers)
            {
                writer.Join();
            }

            IReadOnlyList<CounterReading> readings = counter.Collect();
            Assert.Equal(Limit + 1, readings.Count);
            Assert.Equal(Limit + 1, counter.SeriesCount);
            Assert.Equal((long)threads * PerThread, readings.Sum(r => r.Value));
            Assert.Equal((long)(threads * PerThread) - Limit, Assert.Single(readings, r => r.Tags.Count == 1 && r.Tags[0].Key == "otel.metric.overflow").Value);
            SeriesIdentityTests.AssertOneSeriesPerIdentity(readings.Select(r => r.Tags));
        }
    }

    [Fact]
    public void AnAliasMetBeforeTheLimitKeepsItsSeriesAndANewOneAfterGoesToTheOverflowSeries()
    {
        PartitionedCounter counter = new MetricRegistry(new MetricRegistryOptions { MaxSeriesPerInstrument = 2 }).CreateCounter("test.alias.limit");
        counter.Add(1, new KeyValuePair<string, object?>("code", 200));
        counter.Add(1, new KeyValuePair<string, object?>("code", "200"));
        counter.Add(1, new KeyValuePair<string, object?>("code", 404));
        counter.Add(1, new KeyValuePair<string, object?>("code", 500));
        counter.Add(1, new KeyValuePair<string, object?>("code", "200"));
        counter.Add(1, new KeyValuePair<string, object?>("code", 404.0));

        IReadOnlyList<CounterReading> readings = counter.Collect();
        Assert.Equal(3, readings.Count);
        Assert.Equal(3, readings.Single(r => Equals(r.Tags[0].Value, 200L)).Value);
        Assert.Equal(2, readings.Single(r => r.Tags[0].Key == "otel.metric.overflow").Value);
        SeriesIdentityTests.AssertOneSeriesPerIdentity(readings.Select(r => r.Tags));
    }

    [Fact]
    public void AnAliasMetBeforeTheLimitKeepsItsSeriesThoughMoreAliasesThanTheLimitWereMet()
    {
        // Three tag sets that export as one label a_b="1": the series, then two aliases kept (as
        // many as the limit), and a third resolved under the lock on every use.
        PartitionedCounter counter = new MetricRegistry(new MetricRegistryOptions { MaxSeriesPerInstrument = 2 }).CreateCounter("test.alias.unkept");
        KeyValuePair<string, object?>[][] alike =
        [
            [new("a.b", 1)],
            [new("a_b", 1)],
            [new("a-b", 1)],
            [new("a/b", 1)],
        ];
        foreach (KeyValuePair<string, object?>[] tags in alike)
        {
            counter.Add(1, tags);
        }

        Assert.Equal(4, Assert.Single(counter.Collect()).Value);

        // The second series reaches the limit, and a third tag set goes to the overflow series;
        // every tag set above was met before it.
        counter.Add(1, new KeyValuePair<string, object?>("other", 1));
        counter.Add(1, new KeyValuePair<string, object?>("other", 2));
        foreach (KeyValuePair<string, object?>[] tags in alike)
        {
            counter.Add(1, tags);
        }

        IReadOnlyList<CounterReading> readings = counter.Collect();
        Assert.Equal(1, readings.Single(r => r.Tags[0].Key == "otel.metric.overflow").Value);
        Assert.Equal(8, readings.Single(r => r.Tags[0].Key == "a.b").Value);
    }

    [Fact]
    public void TheOverflowSeriesIsReportedWhileItExistsThoughARemovalFreesAPlace()
    {
        var registry = new MetricRegistry(new MetricRegistryOptions { MaxSeriesPerInstrument = 2 });
        PartitionedCounter counter = registry.CreateCounter("test.overflow.removal");
        counter.Add(1, new KeyValuePair<string, object?>("t", "a"));
        counter.Add(1, new KeyValuePair<string, object?>("t", "b"));
        Assert.False(registry.HasOverflowSeries(counter));
        counter.Add(1, new KeyValuePair<string, object?>("t", "c"));
        Assert.True(registry.HasOverflowSeries(counter));

        Assert.True(counter.Remove(new KeyValuePair<string, object?>("t", "a")));
        counter.Collect();
        Assert.Contains(counter.Collect(), r => r.Tags[0].Key == "otel.metric.overflow" && r.Value == 1);
        Assert.True(registry.HasOverflowSeries(counter));
    }

    [Fact]
    public void ALimitOfIntMaxValueGrowsTheSeriesArraysByDoubling()
    {
        // The arrays of N series take O(N) bytes in all, doubling; at int.MaxValue the limit's
        // series and the overflow series overflowed an int, and every new series copied them all.
        long Allocated(int limit)
        {
            PartitionedCounter counter = new MetricRegistry(new MetricRegistryOptions { MaxSeriesPerInstrument = limit }).CreateCounter("test.huge.limit");
            KeyValuePair<string, object?>[] tags = [.. Enumerable.Range(0, 5_000).Select(i => new KeyValuePair<string, object?>("id", (long)i))];
            long before = GC.GetAllocatedBytesForCurrentThread();
            foreach (KeyValuePair<string, object?> tag in tags)
            {
                counter.Add(1, tag);
            }

            return GC.GetAllocatedBytesForCurrentThread() - before;
        }

        long belowMax = Allocated(1_000_000);
        long atMax = Allocated(int.MaxValue);
        Assert.True(atMax < belowMax * 2, $"{atMax:N0} bytes at int.MaxValue, {belowMax:N0} at 1,000,000");
    }

    [Fact]
    public void PastTheLimitANewTagSetAllocatesNothing()
    {
        PartitionedCounter counter = new MetricRegistry(new MetricRegistryOptions { MaxSeriesPerInstrument = 2 }).CreateCounter("test.overflow.alloc");
        // Enough tag sets that no add of the check's warm-up and rounds repeats one.
        KeyValuePair<string, object?>[][] tagSets = [.. Enumerable.Range(0, 45_000).Select(i => new KeyValuePair<string, object?>[] { new("user", (long)i), new("route", "/r") })];
        counter.Add(1, tagSets[0]);
        counter.Add(1, tagSets[1]);
        int next = 2;

        // The check warms up (the overflow series is created, tiered compilation settles) and
        // retries a round that allocated once, as a JIT tier-up on this thread can.
        AllocationAssert.DoesNotAllocate(() => counter.Add(1, tagSets[next++]));

        Assert.Equal(next - 2, counter.Collect().Single(r => r.Tags[0].Key == "otel.metric.overflow").Value);
    }

    [Fact]
    public void MoreInstrumentsThanTheLimitAreRefusedAtCreation()
    {
        var registry = new MetricRegistry(new MetricRegistryOptions { MaxInstruments = 3 });
        PartitionedCounter a = registry.CreateCounter("test.a");
        registry.CreateCounter("test.b");
        registry.CreateOperationData("test.c");
        var e = Assert.Throws<InvalidOperationException>(() => registry.CreateCounter("test.d"));
        Assert.Contains("MaxInstruments", e.Message);
        Assert.Contains("'test.d'", e.Message);
        Assert.Throws<InvalidOperationException>(() => registry.CreateOperationData("test.e"));
        Assert.Same(a, registry.CreateCounter("test.a"));
        Assert.Equal(3, registry.Instruments.Count);
        Assert.Equal(3, registry.MaxInstruments);
        Assert.Equal(MetricRegistryOptions.DefaultMaxInstruments, new MetricRegistry().MaxInstruments);
    }

    [Fact]
    public void TooManyTagsAreRefusedBeforeAnySeriesIsMade()
    {
        var registry = new MetricRegistry(new MetricRegistryOptions { MaxTagsPerSeries = 4 });
        PartitionedCounter counter = registry.CreateCounter("test.tag.count");
        KeyValuePair<string, object?>[] four = [.. Enumerable.Range(0, 4).Select(i => new KeyValuePair<string, object?>($"k{i}", i))];
        KeyValuePair<string, object?>[] five = [.. Enumerable.Range(0, 5).Select(i => new KeyValuePair<string, object?>($"k{i}", i))];
        counter.Add(1, four);
        var e = Assert.Throws<ArgumentException>(() => counter.Add(1, five));
        Assert.Contains("MaxTagsPerSeries", e.Message);
        Assert.Equal(1, counter.SeriesCount);

        KeyValuePair<string, object?>[] tenThousand = [.. Enumerable.Range(0, 10_000).Select(i => new KeyValuePair<string, object?>($"k{i}", i))];
        PartitionedCounter byDefault = new MetricRegistry().CreateCounter("test.tag.count");
        Assert.Throws<ArgumentException>(() => byDefault.Add(1, tenThousand));
        Assert.Equal(0, byDefault.SeriesCount);
    }

    [Fact]
    public void LongKeysAndValuesAreRefusedAndTheMessageIsCut()
    {
        var registry = new MetricRegistry(new MetricRegistryOptions { MaxTagKeyLength = 8, MaxTagValueLength = 16 });
        PartitionedCounter counter = registry.CreateCounter("test.tag.length");
        counter.Add(1, new KeyValuePair<string, object?>("eightchr", new string('v', 16)));
        Assert.Contains("MaxTagKeyLength", Assert.Throws<ArgumentException>(() => counter.Add(1, new KeyValuePair<string, object?>("ninechars", "v"))).Message);
        Assert.Contains("MaxTagValueLength", Assert.Throws<ArgumentException>(() => counter.Add(1, new KeyValuePair<string, object?>("k", new string('v', 17)))).Message);

        string tenMegabytes = new('x', 10_000_000);
        var e = Assert.Throws<ArgumentException>(() => new MetricRegistry().CreateCounter("test.huge").Add(1, new KeyValuePair<string, object?>("k", tenMegabytes)));
        Assert.True(e.Message.Length < 400, $"The message is {e.Message.Length} characters long.");
        Assert.Contains("(10000000 chars)", e.Message);
        Assert.Equal(1, counter.SeriesCount);
    }

    [Fact]
    public void ALongInvalidNameIsCutInTheMessage()
    {
        string name = "bad name " + new string('n', 10_000);
        var e = Assert.Throws<ArgumentException>(() => new MetricRegistry().CreateCounter(name));
        Assert.True(e.Message.Length < 400, $"The message is {e.Message.Length} characters long.");
        Assert.Contains($"({name.Length} chars)", e.Message);
        Assert.Contains("not a valid instrument name", e.Message);
    }

    [Theory]
    [InlineData(nameof(MetricRegistryOptions.MaxInstruments), 0)]
    [InlineData(nameof(MetricRegistryOptions.MaxTagsPerSeries), 0)]
    [InlineData(nameof(MetricRegistryOptions.MaxTagsPerSeries), 129)]
    [InlineData(nameof(MetricRegistryOptions.MaxTagKeyLength), 0)]
    [InlineData(nameof(MetricRegistryOptions.MaxTagValueLength), 0)]
    public void OutOfRangeLimitsAreRefused(string option, int value)
    {
        var options = new MetricRegistryOptions();
        typeof(MetricRegistryOptions).GetProperty(option)!.SetValue(options, value);
        Assert.Contains(option, Assert.Throws<ArgumentOutOfRangeException>(() => new MetricRegistry(options)).Message);
    }
}
