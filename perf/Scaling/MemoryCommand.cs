using System.Diagnostics;
using System.Globalization;
using ScalableMetrics.Diagnostics;

namespace ScalableMetrics.Scaling;

/// <summary>
/// The harness's <c>memory</c> command: for each instrument kind, write path, partition count and
/// series count, the bytes one series costs and the time of one collection of all of them.
/// </summary>
/// <remarks>
/// <para>Bytes per series are counted all-in: the GC heap (series objects, tag sets, the series
/// table's entries) and the pinned object heap, where the arena's chunks live (no native memory
/// is used), as <see cref="GC.GetTotalMemory(bool)"/> reports them after full collections, before
/// and after the series are created, divided by the series count. Each series is bound with one
/// integer tag (<c>series=i</c>) and written once: a counter's incremented, a histogram's records
/// one value. A histogram has the default boundaries (OpenTelemetry's 15: 16 buckets, so 17 slots
/// per partition with its sum).</para>
/// <para>The instrument kind is a column of its own, not a second command: the two kinds share
/// every other parameter, and one table (and CSV) puts a histogram series' bytes next to a
/// counter series' at the same partitions, which is how the histogram's bar (at most 32 KB per
/// series at 192 partitions) is read against the counter's (2 KB).</para>
/// <para>Partitions: per processor, <see cref="MetricRegistryOptions.PartitionCount"/> (with
/// restartable sequences the registry adds one overflow region); per thread, the thread indexes
/// each series' regions are made for, as if that many writer threads held indexes.</para>
/// </remarks>
internal static class MemoryCommand
{
    public const string CsvHeader = "instrument,storage,partitions,series,bytes_per_series,collect_ms";

    /// <summary>The instrument kinds <c>--instrument</c> selects, in the order they are measured.</summary>
    public static IReadOnlyList<string> InstrumentKinds { get; } = ["counter", "histogram"];

    private static readonly (string Name, MetricRegistryOptions Options)[] s_storages =
    [
        ("restartable", new() { Strategy = PartitionStrategy.PerProcessor, UseRestartableSequences = true }),
        ("interlocked", new() { Strategy = PartitionStrategy.PerProcessor, UseRestartableSequences = false }),
        ("per-thread", new() { Strategy = PartitionStrategy.PerThread }),
    ];

    public static int Run(IReadOnlyList<string> instruments, IReadOnlyList<int> partitionCounts, IReadOnlyList<int> seriesCounts, string? csvPath, TextWriter output, TextWriter error)
    {
        output.WriteLine($"machine:   {MachineInfo.Current()}");
        output.WriteLine($"memory:    GC heap + pinned heap per series after full collections (GC.GetTotalMemory(true)); one integer tag per series; histogram: default boundaries, 16 buckets; collect = one Collect() of all series, best of 3");
        output.WriteLine($"{"instrument",-10} {"storage",-12} {"partitions",10} {"series",8} {"bytes/series",13} {"slots B/series",15} {"collect ms",11}");
        var rows = new List<string>();
        foreach (string instrument in instruments)
        {
            foreach ((string name, MetricRegistryOptions template) in s_storages)
            {
                // Once unmeasured, so that one-time costs (static constructors, the JIT) land in no point.
                var warmUp = new MetricRegistry(new MetricRegistryOptions { Strategy = template.Strategy, UseRestartableSequences = template.UseRestartableSequences });
                WriteSeries(warmUp, instrument, 1).Collect();

                MeasureStorage(instrument, name, template);
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

        void MeasureStorage(string instrument, string name, MetricRegistryOptions template)
        {
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
                    if (Measure(instrument, name, options, series) is not { } point)
                    {
                        continue;
                    }

                    output.WriteLine(string.Create(CultureInfo.InvariantCulture, $"{instrument,-10} {name,-12} {partitions,10} {series,8} {point.BytesPerSeries,13:0} {point.SlotBytesPerSeries,15:0} {point.CollectMilliseconds,11:0.000}"));
                    rows.Add(string.Create(CultureInfo.InvariantCulture, $"{instrument},{name},{partitions},{series},{point.BytesPerSeries:0},{point.CollectMilliseconds:0.000}"));
                }
            }
        }

        (double BytesPerSeries, double SlotBytesPerSeries, double CollectMilliseconds)? Measure(string instrument, string name, MetricRegistryOptions options, int series)
        {
            long before = SettledHeapBytes();
            MetricRegistry registry;
            try
            {
                registry = new MetricRegistry(options);
            }
            catch (ArgumentOutOfRangeException e)
            {
                output.WriteLine($"{instrument,-10} {name,-12} {options.PartitionCount,10} {series,8}   skipped: {e.Message.Split('\n')[0]}");
                return null;
            }

            if (registry.WritePath != (name switch { "restartable" => WritePath.RestartableSequence, "interlocked" => WritePath.InterlockedProcessorId, _ => WritePath.PerThread }))
            {
                output.WriteLine($"{instrument,-10} {name,-12} {options.PartitionCount,10} {series,8}   skipped: the registry uses {registry.WritePath} ({registry.WritePathReason})");
                return null;
            }

            WrittenInstrument written = WriteSeries(registry, instrument, series);
            long after = SettledHeapBytes();
            long total = written.ReadWrites();
            if (total != series)
            {
                throw new InvalidOperationException($"{instrument} {name}: collected {total}, expected {series}.");
            }

            double best = double.MaxValue;
            for (int repeat = 0; repeat < 3; repeat++)
            {
                long start = Stopwatch.GetTimestamp();
                written.Collect();
                best = Math.Min(best, Stopwatch.GetElapsedTime(start).TotalMilliseconds);
            }

            double slotBytes = (double)registry.SlotBytes / series;
            GC.KeepAlive(registry);
            return ((double)(after - before) / series, slotBytes, best);
        }

        // Creates the instrument and its series, each bound with one integer tag and written once.
        static WrittenInstrument WriteSeries(MetricRegistry registry, string instrument, int series)
        {
            if (instrument == "histogram")
            {
                PartitionedHistogram histogram = registry.CreateHistogram("memory.series");
                for (int i = 0; i < series; i++)
                {
                    histogram.Bind(new KeyValuePair<string, object?>("series", i)).Record(1.0);
                }

                return new WrittenInstrument(() => histogram.Collect().Count, () => histogram.Collect().Sum(reading => reading.Count));
            }

            PartitionedCounter counter = registry.CreateCounter("memory.series");
            for (int i = 0; i < series; i++)
            {
                counter.Bind(new KeyValuePair<string, object?>("series", i)).Increment();
            }

            return new WrittenInstrument(() => counter.Collect().Count, () => counter.Collect().Sum(reading => reading.Value));
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
