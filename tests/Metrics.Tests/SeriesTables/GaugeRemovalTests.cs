using System.Runtime.CompilerServices;
using ScalableMetrics.Snapshots;

namespace ScalableMetrics.Tests.SeriesTables;

/// <summary>
/// A removed gauge series: a set through a handle kept past its last export is not exported, and
/// is counted once, when the GC finds the series unreachable, where it left the series with
/// another value than the export's (the gauges' side of <see cref="RemovalTests"/>).
/// </summary>
public class GaugeRemovalTests
{
    private static readonly KeyValuePair<string, object?> s_a = new("tenant", "a");

    [Theory]
    [InlineData(3L, new long[] { 5, 6 }, 1)]
    [InlineData(3L, new long[] { 3 }, 0)]
    [InlineData(3L, new long[] { 5, 3 }, 0)]
    [InlineData(3L, new long[0], 0)]
    [InlineData(null, new long[] { 1 }, 1)]
    [InlineData(null, new long[0], 0)]
    public void LongGaugeSetsAfterTheLastExportAreCountedOnceAtTheReclaim(long? exported, long[] late, long counted)
    {
        var registry = new MetricRegistry();
        Gauge gauge = registry.CreateGauge("test.gauge.late");
        Assert.Equal(exported, RemoveAndSetLate(gauge, exported, late));
        RemovalTests.CollectGarbage();
        Assert.Equal((0, 1L, counted), gauge.Removals);
        Assert.Equal((1L, counted), (registry.RemovedSeriesReclaimed, registry.RemovedSeriesLateAdds));
    }

    [Theory]
    [InlineData(3.5, new[] { 5.5 }, 1)]
    [InlineData(3.5, new[] { 3.5 }, 0)]
    [InlineData(double.NaN, new[] { double.NaN }, 0)]
    [InlineData(double.NaN, new[] { 1.0 }, 1)]
    [InlineData(double.PositiveInfinity, new[] { double.NegativeInfinity }, 1)]
    [InlineData(null, new[] { 2.5 }, 1)]
    public void DoubleGaugeSetsAfterTheLastExportAreCountedOnceAtTheReclaim(double? exported, double[] late, long counted)
    {
        var registry = new MetricRegistry();
        DoubleGauge gauge = registry.CreateDoubleGauge("test.gauge.late");
        Assert.Equal(exported, RemoveAndSetLate(gauge, exported, late));
        RemovalTests.CollectGarbage();
        Assert.Equal((0, 1L, counted), gauge.Removals);
        Assert.Equal((1L, counted), (registry.RemovedSeriesReclaimed, registry.RemovedSeriesLateAdds));
    }

    [Fact]
    public void AnExpiredGaugeSeriesIsReclaimedWithNothingLate()
    {
        var registry = new MetricRegistry(new MetricRegistryOptions { RemoveSeriesIdleForCollections = 1 });
        Gauge gauge = registry.CreateGauge("test.gauge.idle");
        gauge.Set(4, s_a);
        Assert.Equal(4, Assert.Single(gauge.Collect()).Value);
        Assert.Single(gauge.Collect());
        Assert.Single(gauge.Collect());
        Assert.Empty(gauge.Collect());
        Assert.Equal(1, gauge.Removals.Retired);
        RemovalTests.CollectGarbage();
        Assert.Equal((0, 1L, 0L), gauge.Removals);
    }

    [Fact]
    public void EveryRemovedGaugeSeriesEndsInItsLastExportOrIsCountedLate()
    {
        const int SetsPerThread = 60_000;
        var registry = new MetricRegistry();
        Gauge gauge = registry.CreateGauge("test.gauge.removal.exact");
        var records = new SeriesRecords();
        var random = new Random(30);
        int threads = Math.Max(4, Environment.ProcessorCount * 2);
        var lastHandles = new GaugeSeries?[threads];
        int removals = 0;

        ConcurrentWriters.Run(
            threads,
            t =>
            {
                // Each writer writes two tag sets of its own, in turns of 500 sets: one writer per
                // tag set, so that each series' final value is its writer's last set, and the tag
                // set not in its turn is idle, so that a removal may find nothing after the export.
                KeyValuePair<string, object?>[][] tags = [[new("writer", t), new("turn", 0)], [new("writer", t), new("turn", 1)]];
                GaugeSeries bound = gauge.Bind(tags[0]);
                SeriesRecord record = records.Of(bound);
                for (int i = 0; i < SetsPerThread; i++)
                {
                    // Each value three times: a set after the last export may repeat the exported value.
                    long value = i / 3;
                    bound.Set(value);
                    record.LastSet = value;

                    // Bound again at each turn and now and then: a new series once the old one is gone.
                    if (i % 500 == 499 || i % 97 == 0)
                    {
                        bound = gauge.Bind(tags[(i + 1) / 500 % 2]);
                        record = records.Of(bound);
                    }

                    if (i == SetsPerThread / 2)
                    {
                        SpinWait.SpinUntil(() => Volatile.Read(ref removals) > 0, TimeSpan.FromSeconds(10));
                    }
                }

                lastHandles[t] = bound;
            },
            whileRunning: () =>
            {
                records.Export(gauge);
                if (gauge.Remove(new("writer", random.Next(threads)), new("turn", random.Next(2))))
                {
                    Interlocked.Increment(ref removals);
                }
            });

        // A series per writer set once more and left alone; then every series is removed and
        // exported a last time, and each writer's last handle sets once more, late for certain,
        // and is let go.
        SetOnce(gauge, threads, records);
        for (int t = 0; t < threads; t++)
        {
            for (int turn = 0; turn < 3; turn++)
            {
                gauge.Remove(new("writer", t), new("turn", turn));
            }
        }

        records.Export(gauge);
        records.Export(gauge);
        SetLateAndLetGo(lastHandles, records);
        for (int i = 0; i < 10 && gauge.Removals.Retired > 0; i++)
        {
            RemovalTests.CollectGarbage();
        }

        // Late by the test's own account: set last to a value its last export did not carry. Each
        // writer's last handle is late; the series set once at the end is not.
        long late = records.All.Count(r => r.LastSet is { } set && (!r.Exported || set != r.LastExported));
        Assert.True(removals > 0);
        Assert.Equal(0, gauge.SeriesCount);
        Assert.InRange(late, threads, records.All.Count - threads);
        Assert.Equal((0, (long)records.All.Count, late), gauge.Removals);
    }

    // Not inlined, so that no local of the caller keeps the series alive.
    [MethodImpl(MethodImplOptions.NoInlining)]
    private static long? RemoveAndSetLate(Gauge gauge, long? exported, long[] late)
    {
        GaugeSeries series = gauge.Bind(s_a);
        if (exported is { } value)
        {
            series.Set(value);
        }

        Assert.True(gauge.Remove(s_a));
        long? read = gauge.Collect() is [LongReading one] ? one.Value : null;
        Assert.Empty(gauge.Collect());
        foreach (long set in late)
        {
            series.Set(set);
        }

        Assert.Equal((1, 0L, 0L), gauge.Removals);
        return read;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static double? RemoveAndSetLate(DoubleGauge gauge, double? exported, double[] late)
    {
        DoubleGaugeSeries series = gauge.Bind(s_a);
        if (exported is { } value)
        {
            series.Set(value);
        }

        Assert.True(gauge.Remove(series));
        double? read = gauge.Collect() is [DoubleReading one] ? one.Value : null;
        Assert.Empty(gauge.Collect());
        foreach (double set in late)
        {
            series.Set(set);
        }

        Assert.Equal((1, 0L, 0L), gauge.Removals);
        return read;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void SetOnce(Gauge gauge, int threads, SeriesRecords records)
    {
        for (int t = 0; t < threads; t++)
        {
            GaugeSeries series = gauge.Bind(new("writer", t), new("turn", 2));
            series.Set(7);
            records.Of(series).LastSet = 7;
        }
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void SetLateAndLetGo(GaugeSeries?[] handles, SeriesRecords records)
    {
        for (int t = 0; t < handles.Length; t++)
        {
            GaugeSeries handle = handles[t]!;
            handle.Set(-1);
            records.Of(handle).LastSet = -1;
            handles[t] = null;
        }
    }

    /// <summary>What the test knows of one series: its writer's last set and the last value exported.</summary>
    private sealed class SeriesRecord
    {
        public long? LastSet { get; set; }

        public bool Exported { get; set; }

        public long LastExported { get; set; }
    }

    /// <summary>A record per series object, held without holding the series, so that the GC can collect a removed one.</summary>
    private sealed class SeriesRecords
    {
        private readonly ConditionalWeakTable<GaugeSeries, SeriesRecord> _bySeries = new();
        private readonly List<SeriesRecord> _all = [];

        public IReadOnlyList<SeriesRecord> All => _all;

        public SeriesRecord Of(GaugeSeries series)
        {
            lock (_all)
            {
                if (!_bySeries.TryGetValue(series, out SeriesRecord? record))
                {
                    record = new SeriesRecord();
                    _bySeries.Add(series, record);
                    _all.Add(record);
                }

                return record;
            }
        }

        /// <summary>
        /// Collects <paramref name="gauge"/> into a snapshot of its own (so that no snapshot keeps
        /// series alive) and keeps each series' value; first takes a record of every series the
        /// gauge holds, set or not, so that every series this collection may unlink has one.
        /// </summary>
        /// <remarks>
        /// A series may reach neither a writer nor an export: a <c>Bind</c> that creates it, then
        /// finds it marked by a <c>Remove</c> by tags and unlinked by a collection before it takes
        /// the table's lock, binds the new series of its tags instead, and the first, never set,
        /// is removed and reclaimed (not late) as any other. The test removes and exports on one
        /// thread, so a series this collection unlinks was marked, hence in the table, before
        /// this read of it.
        /// </remarks>
        [MethodImpl(MethodImplOptions.NoInlining)]
        public void Export(Gauge gauge)
        {
            foreach (GaugeSeries series in TaggedLookupTests.TableAccessor<GaugeSeries>.Table(gauge).Series)
            {
                Of(series);
            }

            var snapshot = new InstrumentSnapshot();
            gauge.ReadInto(snapshot);
            for (int i = 0; i < snapshot.Count; i++)
            {
                SeriesRecord record = Of((GaugeSeries)snapshot.KeyAt(i));
                record.Exported = true;
                record.LastExported = snapshot.LongValues[i];
            }
        }
    }
}
