using System.Runtime.CompilerServices;
using ScalableMetrics.SeriesTables;

namespace ScalableMetrics.Tests.SeriesTables;

/// <summary>
/// The tagged lookup through the unbound API, in every shape a caller passes its tags: the same
/// objects every time, rebuilt per record from new strings and boxes, in shuffled orders, and
/// several tag sets in turn; each exact under concurrent writers, allocation-free on an
/// existing series, and with the series identity rules and the limit as they were.
/// </summary>
public class TaggedLookupTests
{
    private const int RecordsPerThread = 40_000;

    private static readonly KeyValuePair<string, object?>[] s_orders = Request("/api/orders/{id}", 200);
    private static readonly KeyValuePair<string, object?>[] s_missing = Request("/api/orders/{id}", 404);

    private static readonly string[] s_shapes = ["same objects", "new strings and boxes", "shuffled", "new and shuffled", "two tag sets in turn"];

    public static TheoryData<string> Shapes => [.. s_shapes];

    [StorageTheory]
    [MemberData(nameof(Storages.All), MemberType = typeof(Storages))]
    public void EveryShapeRecordsIntoItsSeriesExactlyUnderConcurrentWriters(string storage)
    {
        var registry = new MetricRegistry(Storages.Options(storage));
        PartitionedHistogram histogram = registry.CreateHistogram("test.request.duration", "s");
        PartitionedCounter counter = registry.CreateCounter("test.requests");
        int threads = Math.Max(4, Environment.ProcessorCount * 2);

        ConcurrentWriters.Run(
            threads,
            t =>
            {
                for (int i = 0; i < RecordsPerThread; i++)
                {
                    // Each thread runs through the shapes in its own order, so that every form of
                    // a tag set is remembered first somewhere.
                    KeyValuePair<string, object?>[] tags = Shape(i + t, i % 2 == 0 ? s_orders : s_missing);
                    histogram.Record(0.25, tags);
                    counter.Add(2, tags);
                }
            },
            whileRunning: () => histogram.Collect());

        IReadOnlyList<HistogramReading> readings = histogram.Collect();
        Assert.Equal(2, readings.Count);
        Assert.All(readings, r => Assert.Equal((long)threads * RecordsPerThread / 2, r.BucketCounts.Sum()));
        Assert.All(counter.Collect(), r => Assert.Equal((long)threads * RecordsPerThread, r.Value));
        Assert.Equal(2, counter.SeriesCount);
    }

    [Fact]
    public void FormsThatExportAlikeStayOneSeriesWhicheverIsRememberedFirst()
    {
        PartitionedCounter counter = new MetricRegistry().CreateCounter("test.identity.lookup");
        object[] codes = [200, 200L, (short)200, "200", 200.0];
        string[] keys = ["http.route", "http_route"];
        int threads = 4;

        ConcurrentWriters.Run(threads, t =>
        {
            for (int i = 0; i < 20_000; i++)
            {
                counter.Add(1, new KeyValuePair<string, object?>(keys[(i / 5) % 2], "/a"), new("code", codes[(i + t) % codes.Length]));
            }
        });

        CounterReading reading = Assert.Single(counter.Collect());
        Assert.Equal(threads * 20_000L, reading.Value);
        Assert.Equal(1, counter.SeriesCount);
    }

    [Fact]
    public void TagSetsPastTheLimitKeepGoingToTheOverflowSeriesAndTheOthersToTheirOwn()
    {
        PartitionedCounter counter = new MetricRegistry(new MetricRegistryOptions { MaxSeriesPerInstrument = 2 }).CreateCounter("test.limit.lookup");
        KeyValuePair<string, object?>[][] sets = [.. Enumerable.Range(0, 4).Select(i => Request($"/r/{i}", 200))];
        counter.Add(1, sets[0]);
        counter.Add(1, sets[1]);
        int threads = 4;

        ConcurrentWriters.Run(threads, t =>
        {
            for (int i = 0; i < 20_000; i++)
            {
                counter.Add(1, Shape(i / 4, sets[(i + t) % 4]));
            }
        });

        IReadOnlyList<CounterReading> readings = counter.Collect();
        Assert.Equal(3, readings.Count);
        Assert.Equal(1 + (threads * 5_000L), readings.Single(r => r.Tags.Any(tag => tag.Key == "http.route" && Equals(tag.Value, "/r/0"))).Value);
        Assert.Equal(1 + (threads * 5_000L), readings.Single(r => r.Tags.Any(tag => tag.Key == "http.route" && Equals(tag.Value, "/r/1"))).Value);
        Assert.Equal(threads * 10_000L, readings.Single(r => r.Tags[0].Key == "otel.metric.overflow").Value);
    }

    [Theory]
    [MemberData(nameof(Shapes))]
    public void ARecordOnAnExistingSeriesAllocatesNothing(string shape)
    {
        var registry = new MetricRegistry();
        PartitionedHistogram histogram = registry.CreateHistogram("test.alloc.duration", "s");
        PartitionedCounter counter = registry.CreateCounter("test.alloc.requests");

        // Made before measuring: more copies than a thread remembers, cycled.
        KeyValuePair<string, object?>[][] tagSets = [.. Enumerable.Range(0, 512).Select(i => Shape(i, i % 2 == 0 ? s_orders : s_missing, shape))];
        int next = 0;

        AllocationAssert.DoesNotAllocate(() => histogram.Record(0.25, tagSets[next++ & 511]));
        AllocationAssert.DoesNotAllocate(() => counter.Add(1, tagSets[next++ & 511]));
        Assert.Equal(2, histogram.SeriesCount);
        Assert.Equal(2, counter.SeriesCount);
    }

    [Fact]
    public void ADroppedRegistryIsNotKeptAliveByTheThreadThatRecordedIntoIt()
    {
        WeakReference registry = RecordIntoANewRegistry();
        for (int i = 0; i < 5 && registry.IsAlive; i++)
        {
            GC.Collect();
            GC.WaitForPendingFinalizers();
        }

        Assert.False(registry.IsAlive, "The dropped registry is still reachable.");
    }

    [Fact]
    public void EverySeriesIndexIsItsPlaceInCreationOrder()
    {
        PartitionedCounter counter = new MetricRegistry(new MetricRegistryOptions { MaxSeriesPerInstrument = 3 }).CreateCounter("test.index");
        counter.Add(1);
        for (int i = 0; i < 5; i++)
        {
            counter.Add(1, Request($"/r/{i}", 200));
        }

        ArraySegment<CounterSeries> series = TableOf(counter).Series;
        Assert.Equal(4, series.Count);
        for (int i = 0; i < series.Count; i++)
        {
            Assert.Equal(i, series[i].Index);
            Assert.Same(series[i], TableOf(counter).ByIndex[i]);
        }
    }

    // The counter's series table: the instrument hands out recorders, not its table.
    private static SeriesTable<CounterSeries> TableOf(PartitionedCounter counter) => TableAccessor<CounterSeries>.Table(counter);

    internal static KeyValuePair<string, object?>[] Request(string route, int statusCode) =>
    [
        new("http.request.method", "GET"),
        new("url.scheme", "https"),
        new("network.protocol.version", "1.1"),
        new("http.route", route),
        new("http.response.status_code", statusCode),
    ];

    // The tags in a shape (by default one of the first four in turn), the i-th time: the very
    // objects, new strings and boxes of the same values, a rotation of the order, or both.
    internal static KeyValuePair<string, object?>[] Shape(int i, KeyValuePair<string, object?>[] tags, string? shape = null)
    {
        shape ??= s_shapes[i % 4];
        return shape switch
        {
            "same objects" or "two tag sets in turn" => tags,
            "new strings and boxes" => Tags.RecentTagSetsTests.Rebuilt(tags),
            "shuffled" => Rotated(tags, i),
            _ => Tags.RecentTagSetsTests.Rebuilt(Rotated(tags, i)),
        };
    }

    private static KeyValuePair<string, object?>[] Rotated(KeyValuePair<string, object?>[] tags, int shift) =>
        [.. tags.Skip(shift % tags.Length), .. tags.Take(shift % tags.Length)];

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static WeakReference RecordIntoANewRegistry()
    {
        var registry = new MetricRegistry();
        PartitionedCounter counter = registry.CreateCounter("test.dropped");
        for (int i = 0; i < 3; i++)
        {
            counter.Add(1, s_orders);
            counter.Add(1, Tags.RecentTagSetsTests.Rebuilt(s_orders));
        }

        Assert.Equal(6, counter.Collect().Single().Value);
        return new WeakReference(registry);
    }

    // A generic type's member is reached through an accessor of the same type parameters.
    internal static class TableAccessor<TSeries>
        where TSeries : Series
    {
        [UnsafeAccessor(UnsafeAccessorKind.Method, Name = "get_Table")]
        public static extern SeriesTable<TSeries> Table(SeriesInstrument<TSeries> instrument);
    }
}
