using System.Runtime.CompilerServices;
using ScalableMetrics.Cells;
using ScalableMetrics.SeriesTables;
using ScalableMetrics.Snapshots;
using ScalableMetrics.Tags;
using ScalableMetrics.Tests.Platform;

namespace ScalableMetrics.Tests.SeriesTables;

/// <summary>
/// Series that end: removal by tags and by bound series for every kind the registry stores, the
/// last export, the series limit freed, the recent tag sets made stale, and the arena's memory
/// reclaimed once the GC proves no thread can write a removed series.
/// </summary>
public class RemovalTests
{
    private static readonly KeyValuePair<string, object?> s_a = new("tenant", "a");
    private static readonly KeyValuePair<string, object?> s_b = new("tenant", "b");

    /// <summary>Every stored kind, as (name, record 1 into tags, remove by tags, remove a bound series, read the value of tags or null).</summary>
    public static TheoryData<string> Kinds => ["counter", "double-counter", "up-down-counter", "double-up-down-counter", "histogram", "exponential-histogram", "operation", "gauge", "double-gauge"];

    [Theory]
    [MemberData(nameof(Kinds))]
    public void RemovedByTagsIsExportedOnceMoreThenGoneAndComesBackFromZero(string kind)
    {
        var instrument = new KindUnderTest(new MetricRegistry(), kind);
        instrument.Record(3, s_a);
        instrument.Record(2, s_b);
        Assert.Equal(3, instrument.Read(s_a));

        Assert.True(instrument.RemoveByTags(s_a));
        Assert.False(instrument.RemoveByTags(s_a));
        instrument.Record(1, s_a);

        // The next collection is the series' last export, with what was recorded before it.
        Assert.Equal(4, instrument.Read(s_a));
        Assert.Null(instrument.Read(s_a));
        Assert.Equal(1, instrument.SeriesCount);
        Assert.False(instrument.RemoveByTags(s_a));

        // The same tags make a new series, from zero; the other series never moved.
        instrument.Record(5, s_a);
        Assert.Equal(5, instrument.Read(s_a));
        Assert.Equal(2, instrument.Read(s_b));
    }

    [Theory]
    [MemberData(nameof(Kinds))]
    public void RemovedBoundSeriesIsGoneAfterItsLastExport(string kind)
    {
        var instrument = new KindUnderTest(new MetricRegistry(), kind);
        object bound = instrument.Bind(s_a);
        instrument.RecordBound(bound, 2);

        Assert.True(instrument.RemoveBound(bound));
        Assert.False(instrument.RemoveBound(bound));
        Assert.Equal(2, instrument.Read(s_a));
        Assert.Null(instrument.Read(s_a));
        Assert.False(instrument.RemoveBound(bound));

        // Binding the tags again gives a new series, from zero.
        object again = instrument.Bind(s_a);
        Assert.NotSame(bound, again);
        instrument.RecordBound(again, 7);
        Assert.Equal(7, instrument.Read(s_a));
    }

    [Fact]
    public void TheSeriesWithoutTagsIsRemovedAndMadeAgain()
    {
        PartitionedCounter counter = new MetricRegistry().CreateCounter("test.untagged");
        counter.Add(1);
        counter.Add(1);
        Assert.True(counter.Remove());
        Assert.Equal(2, Assert.Single(counter.Collect()).Value);
        Assert.Empty(counter.Collect());
        counter.Add(5);
        Assert.Equal(5, Assert.Single(counter.Collect()).Value);
    }

    [Fact]
    public void RemovingTagsThatExportAlikeRemovesTheirSeries()
    {
        PartitionedCounter counter = new MetricRegistry().CreateCounter("test.alike");
        counter.Add(1, new KeyValuePair<string, object?>("code", 200));
        Assert.True(counter.Remove(new KeyValuePair<string, object?>("code", "200")));
        Assert.Single(counter.Collect());
        Assert.Empty(counter.Collect());
    }

    [Fact]
    public void RemoveRefusesBadInputAndForeignSeries()
    {
        var registry = new MetricRegistry();
        PartitionedCounter counter = registry.CreateCounter("test.bad");
        PartitionedCounter other = registry.CreateCounter("test.other");
        CounterSeries foreign = other.Bind(s_a);

        Assert.Throws<ArgumentNullException>("series", () => counter.Remove((CounterSeries)null!));
        Assert.Throws<ArgumentException>(() => counter.Remove(new KeyValuePair<string, object?>("", "x")));
        Assert.False(counter.Remove(foreign));
        Assert.False(counter.Remove(s_a));
        Assert.Equal(1, other.SeriesCount);
    }

    [Fact]
    public void RemovalFreesItsPlaceUnderTheSeriesLimit()
    {
        PartitionedCounter counter = new MetricRegistry(new MetricRegistryOptions { MaxSeriesPerInstrument = 2 }).CreateCounter("test.limit");
        counter.Add(1, s_a);
        counter.Add(1, s_b);
        counter.Add(1, new KeyValuePair<string, object?>("tenant", "c"));
        Assert.Contains(counter.Collect(), r => r.Tags.AsSpan().ToArray().Any(t => t.Key == "otel.metric.overflow"));

        // The overflow series is not removable: it holds what the limit turned away.
        CounterSeries overflow = counter.Bind(new KeyValuePair<string, object?>("tenant", "e"));
        Assert.False(counter.Remove(overflow));
        Assert.Throws<ArgumentException>(() => counter.Remove(new KeyValuePair<string, object?>("otel.metric.overflow", true)));

        Assert.True(counter.Remove(s_a));
        counter.Collect();
        counter.Add(4, new KeyValuePair<string, object?>("tenant", "d"));
        IReadOnlyList<CounterReading> readings = counter.Collect();
        Assert.Contains(readings, r => r.Tags.AsSpan().ToArray().Contains(new("tenant", "d")) && r.Value == 4);
        Assert.DoesNotContain(readings, r => r.Tags.AsSpan().ToArray().Contains(s_a));
    }

    [Fact]
    public void ThreadsRecentTagSetsNeverFindARemovedSeries()
    {
        PartitionedCounter counter = new MetricRegistry().CreateCounter("test.recent");

        // The same key and value objects every time: after the first, each lookup is a hit among
        // the thread's recent tag sets.
        KeyValuePair<string, object?>[] tags = [s_a];
        for (int i = 0; i < 10; i++)
        {
            counter.Add(1, tags);
        }

        Assert.True(counter.Remove(tags));
        Assert.Equal(10, Assert.Single(counter.Collect()).Value);
        Assert.Empty(counter.Collect());
        for (int i = 0; i < 3; i++)
        {
            counter.Add(1, tags);
        }

        Assert.Equal(3, Assert.Single(counter.Collect()).Value);
        Assert.Equal(0L, counter.Removals.LateAdds);
    }

    [StorageTheory]
    [MemberData(nameof(Storages.All), MemberType = typeof(Storages))]
    public void ReclaimedSlotsGoToTheNextSeriesZeroed(string storage)
    {
        var registry = new MetricRegistry(Storages.Options(storage));
        PartitionedCounter counter = registry.CreateCounter("test.reclaim");
        SlotRange removed = CreateWriteAndRemove(counter, s_a);
        counter.Collect();
        CollectGarbage();
        counter.Collect();
        Assert.Equal((0, 1L, 0L), counter.Removals);

        // A new series of one slot takes the freed range, zeroed.
        CounterSeries next = counter.Bind(s_b);
        Assert.Same(removed.Chunk.FirstGeneration, next.Slots.Chunk.FirstGeneration);
        Assert.Equal(removed.FirstSlot, next.Slots.FirstSlot);
        Assert.Equal(0, next.Read());
        next.Add(2);
        Assert.Equal(2, Assert.Single(counter.Collect()).Value);
    }

    [StorageTheory]
    [MemberData(nameof(Storages.All), MemberType = typeof(Storages))]
    public void AddsThroughAHandleAfterTheLastExportAreCountedAtTheReclaim(string storage)
    {
        var registry = new MetricRegistry(Storages.Options(storage));
        PartitionedCounter counter = registry.CreateCounter("test.late");
        long exported = RemoveAndWriteLate(counter, late: 5);
        Assert.Equal(3, exported);
        CollectGarbage();
        counter.Collect();
        Assert.Equal((0, 1L, 5L), counter.Removals);
        Assert.Equal((1L, 5L), (registry.RemovedSeriesReclaimed, registry.RemovedSeriesLateAdds));
    }

    [StorageTheory]
    [MemberData(nameof(Storages.All), MemberType = typeof(Storages))]
    public void ACounterSaturatedBeforeItsLastExportCountsNoLateAddsAtTheReclaim(string storage)
    {
        // Every add came before the last export, which carried long.MaxValue: nothing was added
        // after it, so the reclaim has no late add to count (docs/series-lifecycle.md, "Exact, and
        // what a handle may still do"; self-diagnostics.md, late_adds: "what was added to removed
        // series after their last export"). A compact slot past long.MaxValue holds a negative
        // total that reads as long.MaxValue (how-it-works.md, "Compact until contended").
        var registry = new MetricRegistry(Storages.Options(storage));
        PartitionedCounter counter = registry.CreateCounter("test.late.saturated");
        Assert.Equal(long.MaxValue, SaturateAndRemove(counter, addsPastMax: 1_000));
        Assert.Empty(counter.Collect());
        CollectGarbage();
        counter.Collect();
        Assert.Equal((0, 1L, 0L), counter.Removals);
        Assert.Equal(0L, registry.RemovedSeriesLateAdds);
    }

    [PinningStorageTheory]
    [MemberData(nameof(Storages.WritePaths), MemberType = typeof(Storages))]
    public void ACounterSaturatedAcrossTwoPartitionsBeforeItsLastExportCountsNoLateAddsAtTheReclaim(string storage)
    {
        // As above, with the total past long.MaxValue only summed over two partitions (two
        // processors, or two threads' indexes), each slot within range: the reads saturate
        // (how-it-works.md, "Counters never go down"), and nothing came after the last export.
        var registry = new MetricRegistry(Storages.Options(storage));
        PartitionedCounter counter = registry.CreateCounter("test.late.saturated.partitions");
        Assert.Equal(long.MaxValue, SaturateOnTwoPartitionsAndRemove(counter));
        Assert.Empty(counter.Collect());
        CollectGarbage();
        counter.Collect();
        Assert.Equal((0, 1L, 0L), counter.Removals);
    }

    [StorageTheory]
    [MemberData(nameof(Storages.Adaptive), MemberType = typeof(Storages))]
    public void ASeriesPromotedWhileItsRemovalIsMarkedIsReclaimedWholeWithNoLateAdds(string storage)
    {
        // Remove marks a series under the table's lock: PartitionedSeries.Retire makes its retired
        // entry under the arena's read lock, naming its per-partition range only if it is promoted
        // already, and the mark that stops promotions is set after that lock is let go. A contended
        // add on another thread promotes it in between: all of it was added before its last export,
        // so the reclaim must count no late add, and give its per-partition slots back.
        var registry = new MetricRegistry(Storages.Options(storage));
        var table = new SeriesTable<PromotedAtItsMarkSeries>(10, new TagLimits(64, 255, 1024), tags => new PromotedAtItsMarkSeries(tags, registry));
        (long exported, SlotRange? promoted) = RemoveWhileAnotherThreadPromotes(registry, table);
        Assert.Equal(5 + 7, exported);

        CollectGarbage();
        ArraySegment<PromotedAtItsMarkSeries> none = table.BeginRead(out long read);
        Assert.Equal(0, none.Count);
        table.EndRead(read, null!, idleCollections: 0);
        Assert.Equal((0, 1L, 0L), table.Removals);

        // Where the promotion was let through, its range went back to the arena: the next
        // promotion of one slot takes it.
        if (promoted is { } range)
        {
            PromotedAtItsMarkSeries next = table.GetOrAdd([s_b]);
            Assert.True(next.TryPromote());
            Assert.Equal(range, next.Slots);
        }
    }

    [Fact]
    public void RemovedSeriesMemoryComesBackForReuse()
    {
        var registry = new MetricRegistry(new MetricRegistryOptions { MaxSeriesPerInstrument = 10_000 });
        PartitionedHistogram histogram = registry.CreateHistogram("test.churn");
        ChurnRound(histogram, 0);
        CollectGarbage();
        histogram.Collect();
        long bytes = registry.SlotBytes;
        for (int round = 1; round < 5; round++)
        {
            ChurnRound(histogram, round);
            CollectGarbage();
            histogram.Collect();
        }

        Assert.Equal(0, histogram.Removals.Retired);
        Assert.Equal(5 * 1000L, histogram.Removals.Reclaimed);
        Assert.Equal(bytes, registry.SlotBytes);
    }

    [StorageTheory]
    [MemberData(nameof(Storages.All), MemberType = typeof(Storages))]
    public void AllExportsAndLateAddsTotalWhatWasRecordedWhileSeriesAreRemovedAndRecreated(string storage)
    {
        const int AddsPerThread = 60_000;
        PartitionedCounter counter = new MetricRegistry(Storages.Options(storage)).CreateCounter("test.removal.exact");
        var exports = new ExportTally();
        var random = new Random(30);
        int threads = Math.Max(4, Environment.ProcessorCount * 2);
        int removals = 0;

        ConcurrentWriters.Run(
            threads,
            t =>
            {
                // The same tag objects on every add: lookups hit the thread's recent tag sets.
                KeyValuePair<string, object?>[] tags = [new("tenant", t % 3)];
                CounterSeries bound = counter.Bind(tags);
                for (int i = 0; i < AddsPerThread; i++)
                {
                    if ((i & 1) == 0)
                    {
                        counter.Add(1, tags);
                    }
                    else
                    {
                        bound.Add(1);
                    }

                    // Bound again now and then: a new series once the old one is gone.
                    if (i % 997 == 0)
                    {
                        bound = counter.Bind(tags);
                    }

                    // Fast writers can all finish before the remover's second pass (its first may
                    // come before any series exists): midway, each waits, bounded, for one removal.
                    if (i == AddsPerThread / 2)
                    {
                        SpinWait.SpinUntil(() => Volatile.Read(ref removals) > 0, TimeSpan.FromSeconds(10));
                    }
                }
            },
            whileRunning: () =>
            {
                exports.Read(counter);
                if (counter.Remove(new KeyValuePair<string, object?>("tenant", random.Next(3))))
                {
                    Interlocked.Increment(ref removals);
                }
            });

        // The series marked last are exported a last time and unlinked; then nothing holds the retired ones.
        exports.Read(counter);
        exports.Read(counter);
        for (int i = 0; i < 10 && counter.Removals.Retired > 0; i++)
        {
            CollectGarbage();
            exports.Read(counter);
        }

        // A Bind before a removed series' last export takes its removal back: at most every removal is reclaimed.
        Assert.True(removals > 0);
        Assert.Equal(0, counter.Removals.Retired);
        Assert.InRange(counter.Removals.Reclaimed, 0, removals);
        Assert.Equal((long)threads * AddsPerThread, exports.Total + counter.Removals.LateAdds);
    }

    [Fact]
    public void IdleExpiryRemovesExactlyTheSeriesUnwrittenForNCollectionsAndNeverABoundOne()
    {
        var registry = new MetricRegistry(new MetricRegistryOptions { RemoveSeriesIdleForCollections = 2 });
        PartitionedCounter counter = registry.CreateCounter("test.idle");
        var c = new KeyValuePair<string, object?>("tenant", "c");
        counter.Add(1, s_a);
        counter.Add(1, s_b);
        counter.Bind(c).Add(1);

        // Collection 1 sees each series first; 2 and 3 see b and c unchanged; a is written before each.
        string[] Tenants() => [.. counter.Collect().Select(r => (string)r.Tags.AsSpan()[0].Value!).Order()];
        Assert.Equal(["a", "b", "c"], Tenants());
        counter.Add(1, s_a);
        Assert.Equal(["a", "b", "c"], Tenants());
        counter.Add(1, s_a);

        // The second unchanged collection marks b; the next exports it a last time, then it is gone.
        Assert.Equal(["a", "b", "c"], Tenants());
        counter.Add(1, s_a);
        Assert.Equal(["a", "b", "c"], Tenants());
        Assert.Equal(["a", "c"], Tenants());
        Assert.Equal(["a", "c"], Tenants());

        // An expired series' tags recorded again make a new series, from zero.
        counter.Add(6, s_b);
        Assert.Equal(6, counter.Collect().Single(r => r.Tags.AsSpan()[0].Value is "b").Value);
    }

    [Fact]
    public void ARecordersRecentTagSetsNeverFindAnExpiredSeries()
    {
        // The listener's way in (AddMeter): a recorder with tags of its own, whose hits are keyed by
        // the table's removal epoch as the table's own are.
        var registry = new MetricRegistry(new MetricRegistryOptions { RemoveSeriesIdleForCollections = 1 });
        PartitionedCounter counter = registry.CreateCounter("test.recorder");
        var recorder = counter.CreateRecorder([new("meter", "m")]);
        KeyValuePair<string, object?>[] tags = [s_a];
        void Record(long value) => (recorder.Find(tags) ?? recorder.GetOrAdd(tags)).Add(value);
        void RecordUntagged(long value) => (recorder.Find([]) ?? recorder.GetOrAdd([])).Add(value);

        Record(3);
        Record(3);
        RecordUntagged(1);
        Assert.Equal(2, counter.Collect().Count);
        Assert.Equal(2, counter.Collect().Count);

        // Unchanged once: marked; the next collection exports both a last time, then they are gone.
        Assert.Equal(2, counter.Collect().Count);
        Assert.Empty(counter.Collect());
        Record(4);
        RecordUntagged(2);
        Assert.Equal([2L, 4L], counter.Collect().Select(r => r.Value).Order());
    }

    [Fact]
    public void ARecordersUntaggedMeasurementsLeaveTheOverflowSeriesOnceARemovalFreesAPlace()
    {
        // The listener's way in (AddMeter) for measurements without tags of their own: past the
        // limit they go to the overflow series; a removal frees a place, and the next untagged
        // measurement, a tag set the table has no series for, makes its series (as the table's
        // own untagged lookup does), rather than going to the overflow series for good.
        PartitionedCounter counter = new MetricRegistry(new MetricRegistryOptions { MaxSeriesPerInstrument = 2 }).CreateCounter("test.recorder.overflow");
        var recorder = counter.CreateRecorder([new("meter", "m")]);
        void RecordUntagged(long value) => (recorder.Find([]) ?? recorder.GetOrAdd([])).Add(value);

        counter.Add(1, s_a);
        counter.Add(1, s_b);
        RecordUntagged(1);
        Assert.Contains(counter.Collect(), r => r.Tags[0].Key == "otel.metric.overflow" && r.Value == 1);

        Assert.True(counter.Remove(s_a));
        counter.Collect();
        RecordUntagged(2);

        IReadOnlyList<CounterReading> readings = counter.Collect();
        Assert.Equal(1, readings.Single(r => r.Tags[0].Key == "otel.metric.overflow").Value);
        Assert.Contains(readings, r => r.Tags.Count == 1 && r.Tags[0].Key == "meter" && r.Value == 2);
    }

    [Fact]
    public void IdleExpiryBelowOneIsRefused()
    {
        var e = Assert.Throws<ArgumentOutOfRangeException>("options", () => new MetricRegistry(new MetricRegistryOptions { RemoveSeriesIdleForCollections = 0 }));
        Assert.Contains(nameof(MetricRegistryOptions.RemoveSeriesIdleForCollections), e.Message, StringComparison.Ordinal);
        Assert.Null(new MetricRegistry().RemoveSeriesIdleForCollections);
    }

    [Theory]
    [MemberData(nameof(Kinds))]
    public void IdleExpiryRemovesAnUnwrittenSeriesOfEveryKind(string kind)
    {
        var instrument = new KindUnderTest(new MetricRegistry(new MetricRegistryOptions { RemoveSeriesIdleForCollections = 1 }), kind);
        instrument.Record(2, s_a);
        instrument.Record(1, s_b);
        Assert.Equal(2, instrument.Read(s_a));
        instrument.Record(1, s_b);
        Assert.Equal(2, instrument.Read(s_a));
        instrument.Record(1, s_b);
        Assert.Equal(2, instrument.Read(s_a));
        Assert.Null(instrument.Read(s_a));
        Assert.Equal(3, instrument.Read(s_b));
    }

    [Theory]
    [MemberData(nameof(Kinds))]
    public void ASeriesBoundAfterItsIdleMarkNeverExpires(string kind)
    {
        var instrument = new KindUnderTest(new MetricRegistry(new MetricRegistryOptions { RemoveSeriesIdleForCollections = 1 }), kind);
        instrument.Record(2, s_a);
        Assert.Equal(2, instrument.Read(s_a));

        // Unchanged for one collection: marked, to be exported a last time by the next.
        Assert.Equal(2, instrument.Read(s_a));

        // The tenant comes back and binds: the mark is taken back, and every add is exported.
        object bound = instrument.Bind(s_a);
        instrument.RecordBound(bound, 1);
        Assert.Equal(3, instrument.Read(s_a));
        Assert.Equal(3, instrument.Read(s_a));
        Assert.Equal(3, instrument.Read(s_a));
        instrument.RecordBound(bound, 4);
        Assert.Equal(7, instrument.Read(s_a));
        Assert.Equal(1, instrument.SeriesCount);
    }

    [Theory]
    [MemberData(nameof(Kinds))]
    public void ABindBeforeTheLastExportTakesARemovalBack(string kind)
    {
        var instrument = new KindUnderTest(new MetricRegistry(), kind);
        instrument.Record(3, s_a);
        Assert.True(instrument.RemoveByTags(s_a));
        object bound = instrument.Bind(s_a);
        instrument.RecordBound(bound, 2);
        Assert.Equal(5, instrument.Read(s_a));
        Assert.Equal(5, instrument.Read(s_a));

        // Removed again, it goes as any removed series does.
        Assert.True(instrument.RemoveBound(bound));
        Assert.Equal(5, instrument.Read(s_a));
        Assert.Null(instrument.Read(s_a));
    }

    [Fact]
    public void ABindAfterTheLastExportMakesANewSeries()
    {
        var registry = new MetricRegistry();
        PartitionedCounter counter = registry.CreateCounter("test.rebind");
        CounterSeries first = counter.Bind(s_a);
        first.Add(3);
        Assert.True(counter.Remove(first));
        Assert.Equal(3, Assert.Single(counter.Collect()).Value);

        CounterSeries second = counter.Bind(s_a);
        Assert.NotSame(first, second);
        second.Add(2);
        Assert.Equal(2, Assert.Single(counter.Collect()).Value);
    }

    [Theory]
    [InlineData("histogram", 1)]
    [InlineData("exponential-histogram", 1)]
    [InlineData("operation", 1)]
    [InlineData("counter", 5)]
    [InlineData("double-counter", 5)]
    [InlineData("up-down-counter", 5)]
    [InlineData("double-up-down-counter", 5)]
    public void LateAddsCountTheRecordsOfAHistogramOrAnOperationAndTheValueOfASum(string kind, long expected)
    {
        var registry = new MetricRegistry();
        var instrument = new KindUnderTest(registry, kind);
        RemoveAndRecordLate(instrument);
        CollectGarbage();
        instrument.Read(s_a);
        Assert.Equal((1L, expected), (registry.RemovedSeriesReclaimed, registry.RemovedSeriesLateAdds));
    }

    [Fact]
    public void ADoubleCountersLateFractionCountsAsAWholeAdd()
    {
        var registry = new MetricRegistry();
        PartitionedDoubleCounter counter = registry.CreateDoubleCounter("test.late.fraction");
        RemoveAndAddLate(counter, 0.25);
        CollectGarbage();
        counter.Collect();
        Assert.Equal((1L, 1L), (registry.RemovedSeriesReclaimed, registry.RemovedSeriesLateAdds));
    }

    [Fact]
    public void AnExponentialHistogramsClassicBucketsDoNotCountItsLateRecordsTwice()
    {
        var registry = new MetricRegistry();
        PartitionedExponentialHistogram histogram = registry.CreateExponentialHistogram("test.late.classic", classicBoundaries: [1, 10]);
        RemoveAndRecordLate(histogram);
        CollectGarbage();
        histogram.Collect();
        Assert.Equal((1L, 2L), (registry.RemovedSeriesReclaimed, registry.RemovedSeriesLateAdds));
    }

    [Fact]
    public void ABucketedOperationsLateRecordsAreItsRecordsNotItsTicks()
    {
        var registry = new MetricRegistry();
        OperationData operation = registry.CreateOperationData("test.late.buckets", boundaries: [0.001, 0.01, 0.1]);
        RemoveAndRecordLate(operation);
        CollectGarbage();
        operation.Collect();
        Assert.Equal((1L, 1L), (registry.RemovedSeriesReclaimed, registry.RemovedSeriesLateAdds));
    }

    internal static void CollectGarbage()
    {
        for (int i = 0; i < 2; i++)
        {
            GC.Collect();
            GC.WaitForPendingFinalizers();
        }
    }

    // Not inlined, so that no local of the caller keeps the series alive: 5 added while compact,
    // removed while another thread promotes it and adds 7, then its last export.
    [MethodImpl(MethodImplOptions.NoInlining)]
    private static (long Exported, SlotRange? Promoted) RemoveWhileAnotherThreadPromotes(MetricRegistry registry, SeriesTable<PromotedAtItsMarkSeries> table)
    {
        PromotedAtItsMarkSeries series = table.GetOrAdd([s_a]);
        series.Add(5);
        Assert.True(series.IsCompact);
        series.BetweenRetireAndMark = () =>
        {
            // A contended add's promotion (PartitionedSeries.Promote), then an add on the route it leaves.
            var writer = new Thread(() =>
            {
                series.TryPromote();
                series.Add(7);
            });
            writer.Start();
            writer.Join();
        };

        Assert.True(table.Remove(series));
        Assert.True(series.IsMarked);
        SlotRange? promoted = series.IsCompact ? null : series.Slots;

        ArraySegment<PromotedAtItsMarkSeries> read = table.BeginRead(out long number);
        Assert.Equal(1, read.Count);
        Assert.Same(series, read[0]);
        long exported = PromotedAtItsMarkSeries.Collect(registry, series);
        table.EndRead(number, null!, idleCollections: 0);
        Assert.True(series.IsRemoved);
        return (exported, promoted);
    }

    // Not inlined, so that no local of the caller keeps the series alive.
    [MethodImpl(MethodImplOptions.NoInlining)]
    private static SlotRange CreateWriteAndRemove(PartitionedCounter counter, KeyValuePair<string, object?> tags)
    {
        CounterSeries series = counter.Bind(tags);
        series.Add(9);
        SlotRange range = series.Slots;
        Assert.True(counter.Remove(series));
        Assert.Equal(9, Assert.Single(counter.Collect()).Value);
        return range;
    }

    // Not inlined, so that no local of the caller keeps the series alive: long.MaxValue added by
    // one thread pinned to one processor, 5 by another pinned to another while the first still
    // holds its thread index, then removed and its last export returned.
    [MethodImpl(MethodImplOptions.NoInlining)]
    private static long SaturateOnTwoPartitionsAndRemove(PartitionedCounter counter)
    {
        CounterSeries series = counter.Bind(s_a);
        using var firstAdded = new ManualResetEventSlim();
        using var secondAdded = new ManualResetEventSlim();
        var first = new Thread(() =>
        {
            ThreadPinning.Pin(ThreadPinning.AllowedProcessors[0]);
            series.Add(long.MaxValue);
            firstAdded.Set();
            secondAdded.Wait();
        });
        var second = new Thread(() =>
        {
            firstAdded.Wait();
            ThreadPinning.Pin(ThreadPinning.AllowedProcessors[1]);
            series.Add(5);
            secondAdded.Set();
        });
        first.Start();
        second.Start();
        first.Join();
        second.Join();
        Assert.Equal(long.MaxValue, series.Read());
        Assert.True(counter.Remove(series));
        return Assert.Single(counter.Collect()).Value;
    }

    // Not inlined, so that no local of the caller keeps the series alive: saturated, then added
    // to past long.MaxValue, all before its removal and its last export, which it returns.
    [MethodImpl(MethodImplOptions.NoInlining)]
    private static long SaturateAndRemove(PartitionedCounter counter, int addsPastMax)
    {
        CounterSeries series = counter.Bind(s_a);
        series.Add(long.MaxValue);
        for (int i = 0; i < addsPastMax; i++)
        {
            series.Add(1);
        }

        Assert.Equal(long.MaxValue, series.Read());
        Assert.True(counter.Remove(series));
        return Assert.Single(counter.Collect()).Value;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static long RemoveAndWriteLate(PartitionedCounter counter, int late)
    {
        CounterSeries series = counter.Bind(s_a);
        series.Add(3);
        Assert.True(counter.Remove(series));
        long exported = Assert.Single(counter.Collect()).Value;
        Assert.Empty(counter.Collect());
        series.Add(late);
        Assert.Equal((1, 0L, 0L), counter.Removals);
        return exported;
    }

    // One record of 3 (a sum: 3 adds of 1), removed, exported a last time, then for a sum 5 adds
    // of 1 and for a histogram or an operation one record (its value 5, or 5 ms), after the export.
    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void RemoveAndRecordLate(KindUnderTest instrument)
    {
        object series = instrument.Bind(s_a);
        instrument.RecordBound(series, 3);
        Assert.True(instrument.RemoveBound(series));
        Assert.Equal(3, instrument.Read(s_a));
        Assert.Null(instrument.Read(s_a));
        switch (series)
        {
            case HistogramSeries h: h.Record(5); break;
            case ExponentialHistogramSeries h: h.Record(5); break;
            case OperationSeries o: o.Record(TimeSpan.FromMilliseconds(5)); break;
            default: instrument.RecordBound(series, 5); break;
        }
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void RemoveAndAddLate(PartitionedDoubleCounter counter, double late)
    {
        DoubleCounterSeries series = counter.Bind(s_a);
        series.Add(3.0);
        Assert.True(counter.Remove(series));
        Assert.Equal(3.0, Assert.Single(counter.Collect()).Value);
        Assert.Empty(counter.Collect());
        series.Add(late);
    }

    // Two records after the last export, each of which counts in an exponential bucket and a classic one.
    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void RemoveAndRecordLate(PartitionedExponentialHistogram histogram)
    {
        ExponentialHistogramSeries series = histogram.Bind(s_a);
        series.Record(3);
        Assert.True(histogram.Remove(series));
        Assert.Equal(1, Assert.Single(histogram.Collect()).Count);
        Assert.Empty(histogram.Collect());
        series.Record(4);
        series.Record(40);
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void RemoveAndRecordLate(OperationData operation)
    {
        OperationSeries series = operation.Bind(s_a);
        series.Record(TimeSpan.FromMilliseconds(5));
        Assert.True(operation.Remove(series));
        Assert.Equal(1, Assert.Single(operation.Collect()).Count);
        Assert.Empty(operation.Collect());
        series.Record(TimeSpan.FromMilliseconds(7));
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void ChurnRound(PartitionedHistogram histogram, int round)
    {
        for (int i = 0; i < 1000; i++)
        {
            histogram.Record(i, new KeyValuePair<string, object?>("job", (round * 1000) + i));
        }

        for (int i = 0; i < 1000; i++)
        {
            Assert.True(histogram.Remove(new KeyValuePair<string, object?>("job", (round * 1000) + i)));
        }

        histogram.Collect();
        Assert.Empty(histogram.Collect());
    }

    /// <summary>
    /// What every collection exported, series by series: each series object's last value (a
    /// cumulative counter's), held without holding the series, so that the GC can collect a
    /// removed one.
    /// </summary>
    internal sealed class ExportTally
    {
        private readonly ConditionalWeakTable<object, StrongBox<long>> _bySeries = new();
        private readonly List<StrongBox<long>> _all = [];

        /// <summary>The sum of every series' last exported value.</summary>
        public long Total => _all.Sum(box => box.Value);

        /// <summary>Collects <paramref name="instrument"/> into a snapshot of its own (so that no snapshot keeps series alive) and keeps each series' value.</summary>
        [MethodImpl(MethodImplOptions.NoInlining)]
        public void Read(PartitionedCounter instrument)
        {
            var snapshot = new InstrumentSnapshot();
            instrument.ReadInto(snapshot);
            for (int i = 0; i < snapshot.Count; i++)
            {
                StrongBox<long> box = _bySeries.GetValue(snapshot.KeyAt(i), _ =>
                {
                    var added = new StrongBox<long>();
                    _all.Add(added);
                    return added;
                });
                Assert.True(snapshot.LongValues[i] >= box.Value);
                box.Value = snapshot.LongValues[i];
            }
        }
    }

    /// <summary>One instrument of a kind, recorded into and read the same way for all kinds: a record of n is n records of 1 (or, for a gauge, a set to the running total).</summary>
    internal sealed class KindUnderTest(MetricRegistry registry, string kind)
    {
        private readonly Dictionary<TagSet, long> _gaugeTotals = new();

        public Instrument Instrument { get; } = kind switch
        {
            "counter" => registry.CreateCounter("test.kind"),
            "double-counter" => registry.CreateDoubleCounter("test.kind"),
            "up-down-counter" => registry.CreateUpDownCounter("test.kind"),
            "double-up-down-counter" => registry.CreateDoubleUpDownCounter("test.kind"),
            "histogram" => registry.CreateHistogram("test.kind"),
            "exponential-histogram" => registry.CreateExponentialHistogram("test.kind"),
            "operation" => registry.CreateOperationData("test.kind"),
            "gauge" => registry.CreateGauge("test.kind"),
            "double-gauge" => registry.CreateDoubleGauge("test.kind"),
            _ => throw new ArgumentOutOfRangeException(nameof(kind)),
        };

        public int SeriesCount => Instrument.SeriesCount;

        /// <summary>Records through the instrument's tagged methods (a lookup per record; the series is not bound).</summary>
        public void Record(int n, KeyValuePair<string, object?> tag)
        {
            for (int i = 0; i < n; i++)
            {
                switch (Instrument)
                {
                    case PartitionedCounter c: c.Add(1, tag); break;
                    case PartitionedDoubleCounter c: c.Add(1, tag); break;
                    case PartitionedUpDownCounter c: c.Add(1, tag); break;
                    case PartitionedDoubleUpDownCounter c: c.Add(1, tag); break;
                    case PartitionedHistogram h: h.Record(1, tag); break;
                    case PartitionedExponentialHistogram h: h.Record(1, tag); break;
                    case OperationData o: o.Record(TimeSpan.FromMilliseconds(1), tag); break;
                    case Gauge g: g.Set(Total(TagSet.Create([tag])), tag); break;
                    case DoubleGauge g: g.Set(Total(TagSet.Create([tag])), tag); break;
                }
            }
        }

        public object Bind(KeyValuePair<string, object?> tag) => Instrument switch
        {
            PartitionedCounter c => c.Bind(tag),
            PartitionedDoubleCounter c => c.Bind(tag),
            PartitionedUpDownCounter c => c.Bind(tag),
            PartitionedDoubleUpDownCounter c => c.Bind(tag),
            PartitionedHistogram h => h.Bind(tag),
            PartitionedExponentialHistogram h => h.Bind(tag),
            OperationData o => o.Bind(tag),
            Gauge g => g.Bind(tag),
            DoubleGauge g => g.Bind(tag),
            _ => throw new InvalidOperationException(),
        };

        public void RecordBound(object series, int n)
        {
            for (int i = 0; i < n; i++)
            {
                switch (series)
                {
                    case CounterSeries s: s.Add(1); break;
                    case DoubleCounterSeries s: s.Add(1); break;
                    case UpDownCounterSeries s: s.Add(1); break;
                    case DoubleUpDownCounterSeries s: s.Add(1); break;
                    case HistogramSeries s: s.Record(1); break;
                    case ExponentialHistogramSeries s: s.Record(1); break;
                    case OperationSeries s: s.Record(TimeSpan.FromMilliseconds(1)); break;
                    case GaugeSeries s: s.Set(Total(s.Tags)); break;
                    case DoubleGaugeSeries s: s.Set(Total(s.Tags)); break;
                }
            }
        }

        public bool RemoveByTags(KeyValuePair<string, object?> tag)
        {
            bool removed = Instrument switch
            {
                PartitionedCounter c => c.Remove(tag),
                PartitionedDoubleCounter c => c.Remove(tag),
                PartitionedUpDownCounter c => c.Remove(tag),
                PartitionedDoubleUpDownCounter c => c.Remove(tag),
                PartitionedHistogram h => h.Remove(tag),
                PartitionedExponentialHistogram h => h.Remove(tag),
                OperationData o => o.Remove(tag),
                Gauge g => g.Remove(tag),
                DoubleGauge g => g.Remove(tag),
                _ => throw new InvalidOperationException(),
            };
            return removed;
        }

        public bool RemoveBound(object series)
        {
            bool removed = (Instrument, series) switch
            {
                (PartitionedCounter c, CounterSeries s) => c.Remove(s),
                (PartitionedDoubleCounter c, DoubleCounterSeries s) => c.Remove(s),
                (PartitionedUpDownCounter c, UpDownCounterSeries s) => c.Remove(s),
                (PartitionedDoubleUpDownCounter c, DoubleUpDownCounterSeries s) => c.Remove(s),
                (PartitionedHistogram h, HistogramSeries s) => h.Remove(s),
                (PartitionedExponentialHistogram h, ExponentialHistogramSeries s) => h.Remove(s),
                (OperationData o, OperationSeries s) => o.Remove(s),
                (Gauge g, GaugeSeries s) => g.Remove(s),
                (DoubleGauge g, DoubleGaugeSeries s) => g.Remove(s),
                _ => throw new InvalidOperationException(),
            };
            return removed;
        }

        /// <summary>The value of the series of <paramref name="tag"/> in a new collection (a count for histograms and operations), or null where it is not exported.</summary>
        public long? Read(KeyValuePair<string, object?> tag)
        {
            var snapshot = new InstrumentSnapshot();
            Instrument.ReadInto(snapshot);
            for (int i = 0; i < snapshot.Count; i++)
            {
                if (!snapshot.TagsAt(i).AsSpan().ToArray().SequenceEqual([tag]))
                {
                    continue;
                }

                return Instrument switch
                {
                    PartitionedCounter or PartitionedUpDownCounter or Gauge => snapshot.LongValues[i],
                    PartitionedDoubleCounter or PartitionedDoubleUpDownCounter or DoubleGauge => (long)snapshot.DoubleValues[i],
                    PartitionedHistogram => Sum(snapshot.BucketCountsAt(i)),
                    PartitionedExponentialHistogram => snapshot.ExponentialHistogramAt(i).Count,
                    OperationData => snapshot.OperationCountAt(i),
                    _ => throw new InvalidOperationException(),
                };
            }

            // Gone: a gauge of these tags starts its running total again.
            _gaugeTotals.Remove(TagSet.Create([tag]));
            return null;
        }

        private static long Sum(ReadOnlySpan<long> counts)
        {
            long sum = 0;
            foreach (long count in counts)
            {
                sum += count;
            }

            return sum;
        }

        // A gauge's set is its series' running total, so that it reads as the others do.
        private long Total(TagSet tags) => _gaugeTotals[tags] = _gaugeTotals.GetValueOrDefault(tags) + 1;
    }
}
