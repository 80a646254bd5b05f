using System.Globalization;

namespace ScalableMetrics.Scaling;

/// <summary>
/// The harness's <c>memory-churn</c> command (issue 30, series that end): for each instrument kind,
/// storage (adaptive, whose uncontended series stay compact, and per partition) and partition count, creates and writes N series, removes them all, lets the collections export
/// them a last time and the GC collect them, and creates N new ones: the arena's bytes after the
/// removal and after the second N say whether the removed series' memory came back for reuse, the
/// GC heap after the removal whether the series objects went.
/// </summary>
/// <remarks>Each phase's figures are read after a forced, compacting full collection. The totals
/// of the second N are checked, so a reused slot that was not zeroed fails the run.</remarks>
internal static class ChurnCommand
{
    // Compact series (the default, uncontended: one copy each) and a copy per partition from creation.
    private static readonly (string Name, SeriesStorage Storage)[] s_storages = [("adaptive", SeriesStorage.Adaptive), ("per-partition", SeriesStorage.PerPartition)];

    /// <summary>The CSV columns, one row per instrument kind and partition count.</summary>
    public const string CsvHeader = "instrument,storage,partitions,series,arena_bytes_created,arena_bytes_after_removal,arena_bytes_recreated,reclaimed,heap_bytes_before,heap_bytes_created,heap_bytes_after_removal,resident_bytes_created,resident_bytes_after_removal";

    public static int Run(string[] instruments, int[] partitionCounts, int series, string? csvPath, TextWriter output, TextWriter error)
    {
        output.WriteLine($"memory-churn: {series:N0} series created and written once, all removed, two collections and a full GC, then {series:N0} new ones; arena = the registry's chunks (native), heap = GC.GetTotalMemory after a compacting collection");
        output.WriteLine($"{"instrument",-21} {"storage",-13} {"partitions",10} {"arena created",14} {"after removal",14} {"recreated",14} {"reclaimed",10} {"heap before",12} {"heap created",13} {"heap removed",13}");
        var rows = new List<string> { CsvHeader };
        foreach (string instrument in instruments)
        {
            foreach ((string storageName, SeriesStorage storage) in s_storages)
            foreach (int partitions in partitionCounts)
            {
                Point point = Measure(instrument, storage, partitions, series);
                if (point.Recreated != point.Created || point.Reclaimed != series)
                {
                    error.WriteLine(string.Create(CultureInfo.InvariantCulture, $"{instrument} ({storageName}) at {partitions} partitions: {point.Reclaimed} of {series} removed series reclaimed, arena {point.Created} bytes before and {point.Recreated} after the new series: the removed series' memory did not come back."));
                    return 1;
                }

                output.WriteLine(string.Create(CultureInfo.InvariantCulture, $"{instrument,-21} {storageName,-13} {partitions,10} {point.Created,14} {point.AfterRemoval,14} {point.Recreated,14} {point.Reclaimed,10} {point.HeapBefore,12} {point.HeapCreated,13} {point.HeapAfterRemoval,13}"));
                rows.Add(string.Create(CultureInfo.InvariantCulture, $"{instrument},{storageName},{partitions},{series},{point.Created},{point.AfterRemoval},{point.Recreated},{point.Reclaimed},{point.HeapBefore},{point.HeapCreated},{point.HeapAfterRemoval},{point.ResidentCreated},{point.ResidentAfterRemoval}"));
            }
        }

        if (csvPath is not null)
        {
            File.WriteAllLines(csvPath, rows);
        }

        return 0;
    }

    private static Point Measure(string instrument, SeriesStorage storage, int partitions, int series)
    {
        long heapBefore = MemoryCommand.SettledHeapBytes();
        var registry = new MetricRegistry(new MetricRegistryOptions { PartitionCount = partitions, SeriesStorage = storage, MaxSeriesPerInstrument = Math.Max(2, series) });
        var churned = new Churned(registry, instrument);
        churned.Create(series, first: 0);
        long created = registry.SlotBytes;
        long heapCreated = MemoryCommand.SettledHeapBytes();
        long? residentCreated = MemoryCommand.ResidentBytes();

        churned.RemoveAll(series, first: 0);
        long afterRemoval = registry.SlotBytes;
        long heapAfterRemoval = MemoryCommand.SettledHeapBytes();
        long? residentAfterRemoval = MemoryCommand.ResidentBytes();
        long reclaimed = registry.RemovedSeriesReclaimed;

        churned.Create(series, first: series);
        long recreated = registry.SlotBytes;
        long total = churned.Total();
        if (total != series)
        {
            throw new InvalidOperationException($"The {series} new series read {total} in all, not {series}: a reused slot was not zeroed.");
        }

        GC.KeepAlive(registry);
        return new Point(created, afterRemoval, recreated, reclaimed, heapBefore, heapCreated, heapAfterRemoval, residentCreated, residentAfterRemoval);
    }

    private readonly record struct Point(long Created, long AfterRemoval, long Recreated, long Reclaimed, long HeapBefore, long HeapCreated, long HeapAfterRemoval, long? ResidentCreated, long? ResidentAfterRemoval);

    /// <summary>One instrument whose series are created by tags (not bound, so that idle handles keep none alive) and removed by tags.</summary>
    private sealed class Churned(MetricRegistry registry, string kind)
    {
        private readonly Instrument _instrument = kind switch
        {
            "histogram" => registry.CreateHistogram("churn.series"),
            "exponential-histogram" => registry.CreateExponentialHistogram("churn.series"),
            "operation" => registry.CreateOperationData("churn.series"),
            _ => registry.CreateCounter("churn.series"),
        };

        public void Create(int series, int first)
        {
            for (int i = first; i < first + series; i++)
            {
                var tag = new KeyValuePair<string, object?>("series", i);
                switch (_instrument)
                {
                    case PartitionedHistogram h: h.Record(1.0, tag); break;
                    case PartitionedExponentialHistogram h: h.Record(1.0, tag); break;
                    case OperationData o: o.Record(TimeSpan.FromTicks(1), tag); break;
                    case PartitionedCounter c: c.Add(1, tag); break;
                }
            }
        }

        // Removes each series, then collects: the first collection exports them a last time and
        // unlinks them; once the GC has collected them, the next reclaims their slots.
        public void RemoveAll(int series, int first)
        {
            for (int i = first; i < first + series; i++)
            {
                var tag = new KeyValuePair<string, object?>("series", i);
                bool removed = _instrument switch
                {
                    PartitionedHistogram h => h.Remove(tag),
                    PartitionedExponentialHistogram h => h.Remove(tag),
                    OperationData o => o.Remove(tag),
                    PartitionedCounter c => c.Remove(tag),
                    _ => false,
                };
                if (!removed)
                {
                    throw new InvalidOperationException($"Series {i} was not removed.");
                }
            }

            Total();
            MemoryCommand.SettledHeapBytes();
            Total();
        }

        // One collection; the records of every series it read.
        public long Total() => _instrument switch
        {
            PartitionedHistogram h => h.Collect().Sum(r => r.Count),
            PartitionedExponentialHistogram h => h.Collect().Sum(r => r.Count),
            OperationData o => o.Collect().Sum(r => r.Count),
            PartitionedCounter c => c.Collect().Sum(r => r.Value),
            _ => 0,
        };
    }
}
