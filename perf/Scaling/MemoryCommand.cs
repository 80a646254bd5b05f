using System.Diagnostics;
using System.Globalization;
using ScalableMetrics.Diagnostics;

namespace ScalableMetrics.Scaling;

/// <summary>
/// The harness's <c>memory</c> command: for each write path, partition count and series count,
/// the bytes one counter series costs and the time of one collection of all of them.
/// </summary>
/// <remarks>
/// <para>Bytes per series are counted all-in: the GC heap (series objects, tag sets, the series
/// table's entries) and the pinned object heap, where the arena's chunks live (no native memory
/// is used), as <see cref="GC.GetTotalMemory(bool)"/> reports them after full collections, before
/// and after the series are created, divided by the series count. Each series is bound with one
/// integer tag (<c>series=i</c>) and incremented once.</para>
/// <para>Partitions: per processor, <see cref="MetricRegistryOptions.PartitionCount"/> (with
/// restartable sequences the registry adds one overflow region); per thread, the thread indexes
/// each series' regions are made for, as if that many writer threads held indexes.</para>
/// </remarks>
internal static class MemoryCommand
{
    public const string CsvHeader = "storage,partitions,series,bytes_per_series,collect_ms";

    private static readonly (string Name, MetricRegistryOptions Options)[] s_storages =
    [
        ("restartable", new() { Strategy = PartitionStrategy.PerProcessor, UseRestartableSequences = true }),
        ("interlocked", new() { Strategy = PartitionStrategy.PerProcessor, UseRestartableSequences = false }),
        ("per-thread", new() { Strategy = PartitionStrategy.PerThread }),
    ];

    public static int Run(IReadOnlyList<int> partitionCounts, IReadOnlyList<int> seriesCounts, string? csvPath, TextWriter output, TextWriter error)
    {
        output.WriteLine($"machine:   {MachineInfo.Current()}");
        output.WriteLine($"memory:    GC heap + pinned heap per counter series after full collections (GC.GetTotalMemory(true)); one integer tag per series; collect = one PartitionedCounter.Collect() of all series, best of 3");
        output.WriteLine($"{"storage",-12} {"partitions",10} {"series",8} {"bytes/series",13} {"slots B/series",15} {"collect ms",11}");
        var rows = new List<string>();
        foreach ((string name, MetricRegistryOptions template) in s_storages)
        {
            // Once unmeasured, so that one-time costs (static constructors, the JIT) land in no point.
            var warmUp = new MetricRegistry(new MetricRegistryOptions { Strategy = template.Strategy, UseRestartableSequences = template.UseRestartableSequences });
            warmUp.CreateCounter("memory.warm.up").Bind(new KeyValuePair<string, object?>("series", 0)).Increment();
            warmUp.CreateCounter("memory.warm.up").Collect();

            foreach (int partitions in partitionCounts)
            {
                foreach (int series in seriesCounts)
                {
                    var options = new MetricRegistryOptions
                    {
                        Strategy = template.Strategy,
                        UseRestartableSequences = template.UseRestartableSequences,
                        PartitionCount = partitions,
                        MaxSeriesPerInstrument = Math.Max(2, series + 1),
                    };
                    if (Measure(name, options, series) is not { } point)
                    {
                        continue;
                    }

                    output.WriteLine(string.Create(CultureInfo.InvariantCulture, $"{name,-12} {partitions,10} {series,8} {point.BytesPerSeries,13:0} {point.SlotBytesPerSeries,15:0} {point.CollectMilliseconds,11:0.000}"));
                    rows.Add(string.Create(CultureInfo.InvariantCulture, $"{name},{partitions},{series},{point.BytesPerSeries:0},{point.CollectMilliseconds:0.000}"));
                }
            }
        }

        if (csvPath is not null)
        {
            try
            {
                File.WriteAllLines(csvPath, [CsvHeader, .. rows]);
            }
            catch (Exception e) when (e is IOException or UnauthorizedAccessException)
            {
                error.WriteLine($"error: cannot write {csvPath}: {e.Message}");
                return ScalingCommand.FailureExitCode;
            }
        }

        return 0;

        (double BytesPerSeries, double SlotBytesPerSeries, double CollectMilliseconds)? Measure(string name, MetricRegistryOptions options, int series)
        {
            long before = SettledHeapBytes();
            MetricRegistry registry;
            try
            {
                registry = new MetricRegistry(options);
            }
            catch (ArgumentOutOfRangeException e)
            {
                output.WriteLine($"{name,-12} {options.PartitionCount,10} {series,8}   skipped: {e.Message.Split('\n')[0]}");
                return null;
            }

            if (registry.WritePath != (name switch { "restartable" => WritePath.RestartableSequence, "interlocked" => WritePath.InterlockedProcessorId, _ => WritePath.PerThread }))
            {
                output.WriteLine($"{name,-12} {options.PartitionCount,10} {series,8}   skipped: the registry uses {registry.WritePath} ({registry.WritePathReason})");
                return null;
            }

            PartitionedCounter counter = registry.CreateCounter("memory.series");
            for (int i = 0; i < series; i++)
            {
                counter.Bind(new KeyValuePair<string, object?>("series", i)).Increment();
            }

            long after = SettledHeapBytes();
            long total = counter.Collect().Sum(reading => reading.Value);
            if (total != series)
            {
                throw new InvalidOperationException($"{name}: collected {total}, expected {series}.");
            }

            double best = double.MaxValue;
            for (int repeat = 0; repeat < 3; repeat++)
            {
                long start = Stopwatch.GetTimestamp();
                counter.Collect();
                best = Math.Min(best, Stopwatch.GetElapsedTime(start).TotalMilliseconds);
            }

            double slotBytes = (double)registry.SlotBytes / series;
            GC.KeepAlive(registry);
            return ((double)(after - before) / series, slotBytes, best);
        }

        // The heap once the previous point's garbage is gone: a compacting full collection, its
        // finalizers, and another, so that memory the previous point left (its registry was
        // ~150 MB at 192 partitions and 100,000 series) is not freed inside this point's window,
        // which made a 1-series point read negative.
        static long SettledHeapBytes()
        {
            GC.Collect(GC.MaxGeneration, GCCollectionMode.Forced, blocking: true, compacting: true);
            GC.WaitForPendingFinalizers();
            GC.Collect(GC.MaxGeneration, GCCollectionMode.Forced, blocking: true, compacting: true);
            return GC.GetTotalMemory(forceFullCollection: true);
        }
    }
}
