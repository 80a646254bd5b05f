using System.Diagnostics;
using System.Diagnostics.Metrics;

namespace ScalableMetrics.Exporter.Tests.Listening;

/// <summary>
/// The listener's lookup (<c>AddMeter</c>): ASP.NET Core's request duration recorded with a
/// <see cref="TagList"/> built per record, its tags the same objects every time, rebuilt from
/// new strings and boxes, or in other orders; with and without the meter's and instrument's own
/// tags. Exact under concurrent writers, allocation-free on an existing series, and a refused tag
/// set refused every time.
/// </summary>
public sealed class ListenedLookupTests
{
    private const int RecordsPerThread = 20_000;

    private static readonly string[] s_shapes = ["same objects", "new strings and boxes", "shuffled", "new and shuffled"];
    private static readonly KeyValuePair<string, object?>[] s_orders = Request("/api/orders/{id}", 200);
    private static readonly KeyValuePair<string, object?>[] s_missing = Request("/api/orders/{id}", 404);

    public static TheoryData<string> Shapes => [.. s_shapes];

    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public void EveryShapeRecordsIntoItsSeriesExactlyUnderConcurrentWriters(bool sourceTags)
    {
        using var listened = new ListenedMeter(sourceTags ? [new("service.tier", "edge")] : null);
        Histogram<double> histogram = listened.Meter.CreateHistogram<double>("http.server.request.duration", "s", null, sourceTags ? [new("zone", "a")] : null);
        int threads = Math.Max(4, Environment.ProcessorCount * 2);
        PartitionedHistogram target = listened.Instrument<PartitionedHistogram>("http.server.request.duration");

        ConcurrentWriters.Run(
            threads,
            t =>
            {
                for (int i = 0; i < RecordsPerThread; i++)
                {
                    KeyValuePair<string, object?>[] tags = Shape(i + t, i % 2 == 0 ? s_orders : s_missing);
                    histogram.Record(0.25, new TagList(tags));
                }
            },
            whileRunning: () => target.Collect());

        IReadOnlyList<HistogramReading> readings = target.Collect();
        Assert.Equal(2, readings.Count);
        Assert.All(readings, r => Assert.Equal((long)threads * RecordsPerThread / 2, r.BucketCounts.Sum()));
        Assert.All(readings, r => Assert.Equal(sourceTags ? 7 : 5, r.Tags.Count));
        Assert.Equal(0, listened.Host.Drops.Count);
    }

    [Theory]
    [MemberData(nameof(Shapes))]
    public void ARecordOnAnExistingSeriesAllocatesNothing(string shape)
    {
        using var listened = new ListenedMeter([new("service.tier", "edge")]);
        Histogram<double> histogram = listened.Meter.CreateHistogram<double>("http.server.request.duration", "s");
        Counter<long> counter = listened.Meter.CreateCounter<long>("http.server.requests", null, null, [new KeyValuePair<string, object?>("zone", "a")]);

        // Made before measuring: more copies than a thread remembers, cycled.
        KeyValuePair<string, object?>[][] tagSets = [.. Enumerable.Range(0, 512).Select(i => Shape(i, i % 2 == 0 ? s_orders : s_missing, shape))];
        int next = 0;

        AllocationAssert.DoesNotAllocate(() => histogram.Record(0.25, new TagList(tagSets[next++ & 511])));
        AllocationAssert.DoesNotAllocate(() => counter.Add(1, new TagList(tagSets[next++ & 511])));
        Assert.Equal(2, listened.Instrument<PartitionedHistogram>("http.server.request.duration").SeriesCount);
        Assert.Equal(2, listened.Instrument<PartitionedCounter>("http.server.requests").SeriesCount);
    }

    [Fact]
    public void AMeasuredTagThatOverridesASourceTagIsItsOwnSeriesEveryTime()
    {
        using var listened = new ListenedMeter([new("zone", "meter")]);
        Counter<long> counter = listened.Meter.CreateCounter<long>("zoned");
        KeyValuePair<string, object?>[] measured = [new("zone", "measured"), new("route", "/a")];
        KeyValuePair<string, object?>[] plain = [new("route", "/a")];
        for (int i = 0; i < 1_000; i++)
        {
            counter.Add(1, i % 2 == 0 ? measured : plain);
        }

        IReadOnlyList<CounterReading> readings = listened.Instrument<PartitionedCounter>("zoned").Collect();
        Assert.Equal(2, readings.Count);
        Assert.Equal(500, readings.Single(r => r.Tags.Any(t => t.Key == "zone" && Equals(t.Value, "measured"))).Value);
        Assert.Equal(500, readings.Single(r => r.Tags.Any(t => t.Key == "zone" && Equals(t.Value, "meter"))).Value);
    }

    [Fact]
    public void ARefusedTagSetIsDroppedEveryTimeBesideOneThatIsTaken()
    {
        using var listened = new ListenedMeter();
        Counter<long> counter = listened.Meter.CreateCounter<long>("refused");
        KeyValuePair<string, object?>[] refused = [new("route", "/a"), new("payload", new object())];
        KeyValuePair<string, object?>[] taken = [new("route", "/a")];
        for (int i = 0; i < 1_000; i++)
        {
            counter.Add(1, refused);
            counter.Add(1, taken);
        }

        Assert.Equal(1_000, listened.Host.Drops.Count);
        Assert.Equal(1_000, Assert.Single(listened.Instrument<PartitionedCounter>("refused").Collect()).Value);
    }

    private static KeyValuePair<string, object?>[] Request(string route, int statusCode) =>
    [
        new("http.request.method", "GET"),
        new("url.scheme", "https"),
        new("network.protocol.version", "1.1"),
        new("http.route", route),
        new("http.response.status_code", statusCode),
    ];

    // The tags in a shape (by default each in turn), the i-th time: the very objects, new strings
    // and boxes of the same values, a rotation of the order, or both.
    private static KeyValuePair<string, object?>[] Shape(int i, KeyValuePair<string, object?>[] tags, string? shape = null) =>
        (shape ?? s_shapes[i % s_shapes.Length]) switch
        {
            "same objects" => tags,
            "new strings and boxes" => Rebuilt(tags),
            "shuffled" => Rotated(tags, i),
            _ => Rebuilt(Rotated(tags, i)),
        };

    private static KeyValuePair<string, object?>[] Rotated(KeyValuePair<string, object?>[] tags, int shift) =>
        [.. tags.Skip(shift % tags.Length), .. tags.Take(shift % tags.Length)];

    private static KeyValuePair<string, object?>[] Rebuilt(KeyValuePair<string, object?>[] tags) =>
        [.. tags.Select(t => new KeyValuePair<string, object?>(new string(t.Key.AsSpan()), t.Value switch
        {
            string text => new string(text.AsSpan()),
            int number => (object)number,
            var other => other,
        }))];
}
