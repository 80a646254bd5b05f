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
/// table's entries), as <see cref="GC.GetTotalMemory(bool)"/> reports it after full collections,
/// before and after the series are created, plus the native memory of the registry's arena chunks
/// (<c>MetricRegistry.SlotBytes</c>, which the GC does not see), divided by the series count. Each
/// series is bound with one integer tag (<c>series=i</c>) and written once: a counter's
/// incremented, a histogram's records one value. A histogram has the default boundaries
/// (OpenTelemetry's 15: 16 buckets, so 17 slots with its sum); an exponential histogram its
/// defaults; an operation no boundaries (a count and an elapsed time). Resident memory is counted
/// beside (<c>VmRSS</c> of <c>/proc/self/status</c>, before and after, per series; empty where the
/// system has none): chunks are allocated zeroed by the C allocator, whose large blocks come fresh
/// from the operating system and become resident page by page as they are written, so where the
/// resident figure is below the all-in one is the address space of regions no processor wrote.</para>
/// <para><c>--hot-series N</c> writes the first N series from 2 threads at once for a second after
/// they are created and before the memory is read (the totals checked count those writes too): the
/// workload a storage that spreads only contended series is measured on.</para>
/// <para>The storage mode is a column too (<c>--mode</c>): <c>adaptive</c> (<see cref="SeriesStorage.Adaptive"/>,
/// the default: series compact until contended), <c>per-partition</c> (a copy per partition from
/// creation, the layout before compact series) and <c>compact</c>; <c>promoted</c> is the series
/// the registry promoted by the time memory is read (<see cref="MetricRegistry.PromotedSeriesCount"/>).</para>
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
    public const string CsvHeader = "instrument,storage,mode,partitions,series,bytes_per_series,collect_ms,promoted,rss_bytes_per_series";

    /// <summary>The storage modes <c>--mode</c> selects, in the order they are measured.</summary>
    public static IReadOnlyList<string> Modes { get; } = ["adaptive", "per-partition", "compact"];

    // Collections before the timed ones, and the pause after them (see Measure).
    private const int CollectWarmUps = 5;
    private const int CollectWarmUpPauseMilliseconds = 300;

    /// <summary>The instrument kinds <c>--instrument</c> selects, in the order they are measured.</summary>
    public static IReadOnlyList<string> InstrumentKinds { get; } = ["counter", "histogram", "exponential-histogram", "operation"];

    /// <summary>The write paths measured, by the name the CSV's <c>storage</c> column gives them (the promotion command measures the same).</summary>
    internal static IReadOnlyList<(string Name, MetricRegistryOptions Options)> WritePaths { get; } =
    [
        ("restartable", new() { Strategy = PartitionStrategy.PerProcessor, UseRestartableSequences = true }),
        ("interlocked", new() { Strategy = PartitionStrategy.PerProcessor, UseRestartableSequences = false }),
        ("per-thread", new() { Strategy = PartitionStrategy.PerThread }),
    ];

    public static int Run(IReadOnlyList<string> instruments, IReadOnlyList<string> modes, IReadOnlyList<int> partitionCounts, IReadOnlyList<int> seriesCounts, int hotSeries, string? csvPath, TextWriter output, TextWriter error)
    {
        output.WriteLine($"machine:   {MachineInfo.Current()}");
        output.WriteLine($"memory:    GC heap per series after full collections (GC.GetTotalMemory(true)) + the arena chunks' native memory; resident: VmRSS per series; one integer tag per series; histogram: default boundaries, 16 buckets; collect = one Collect() of all series, best of 3 after {CollectWarmUps} warm-up collections and a {CollectWarmUpPauseMilliseconds} ms pause; hot series: {hotSeries} written by 2 threads for 1 s");
        output.WriteLine($"{"instrument",-21} {"storage",-12} {"mode",-13} {"partitions",10} {"series",8} {"bytes/series",13} {"slots B/series",15} {"collect ms",11} {"promoted",9} {"RSS B/series",13}");
        var rows = new List<string>();
        foreach (string instrument in instruments)
        {
            foreach ((string name, MetricRegistryOptions template) in WritePaths)
            {
                // Unmeasured, so that one-time costs (static constructors, the JIT) land in no point:
                // collected often enough, with a pause, for tiered compilation to have replaced the
                // collection's first code by its optimized code (the first storage measured read
                // several times slower than the next ones without it).
                var warmUp = new MetricRegistry(new MetricRegistryOptions { Strategy = template.Strategy, UseRestartableSequences = template.UseRestartableSequences });
                WrittenInstrument warm = WriteSeries(warmUp, instrument, 64, hotSeries: 0);
                for (int round = 0; round < 3; round++)
                {
                    for (int i = 0; i < 100; i++)
                    {
                        warm.Collect();
                    }

                    Thread.Sleep(150);
                }

                foreach (string mode in modes)
                {
                    MeasureStorage(instrument, name, mode, template);
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

        void MeasureStorage(string instrument, string name, string mode, MetricRegistryOptions template)
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
                        SeriesStorage = mode switch { "per-partition" => SeriesStorage.PerPartition, "compact" => SeriesStorage.Compact, _ => SeriesStorage.Adaptive },
                    };
                    if (Measure(instrument, name, options, series) is not { } point)
                    {
                        continue;
                    }

                    string rss = point.ResidentBytesPerSeries is { } resident ? resident.ToString("0", CultureInfo.InvariantCulture) : string.Empty;
                    output.WriteLine(string.Create(CultureInfo.InvariantCulture, $"{instrument,-21} {name,-12} {mode,-13} {partitions,10} {series,8} {point.BytesPerSeries,13:0} {point.SlotBytesPerSeries,15:0} {point.CollectMilliseconds,11:0.000} {point.Promoted,9} {rss,13}"));
                    rows.Add(string.Create(CultureInfo.InvariantCulture, $"{instrument},{name},{mode},{partitions},{series},{point.BytesPerSeries:0},{point.CollectMilliseconds:0.000},{point.Promoted},{rss}"));
                }
            }
        }

        (double BytesPerSeries, double SlotBytesPerSeries, double CollectMilliseconds, long Promoted, double? ResidentBytesPerSeries)? Measure(string instrument, string name, MetricRegistryOptions options, int series)
        {
            long before = SettledHeapBytes();
            long? residentBefore = ResidentBytes();
            MetricRegistry registry;
            try
            {
                registry = new MetricRegistry(options);
            }
            catch (ArgumentOutOfRangeException e)
            {
                output.WriteLine($"{instrument,-21} {name,-12} {options.SeriesStorage,-13} {options.PartitionCount,10} {series,8}   skipped: {e.Message.Split('\n')[0]}");
                return null;
            }

            if (registry.WritePath != (name switch { "restartable" => WritePath.RestartableSequence, "interlocked" => WritePath.InterlockedProcessorId, _ => WritePath.PerThread }))
            {
                output.WriteLine($"{instrument,-21} {name,-12} {options.SeriesStorage,-13} {options.PartitionCount,10} {series,8}   skipped: the registry uses {registry.WritePath} ({registry.WritePathReason})");
                return null;
            }

            WrittenInstrument written = WriteSeries(registry, instrument, series, Math.Min(hotSeries, series));
            long after = SettledHeapBytes();
            long? residentAfter = ResidentBytes();
            long total = written.ReadWrites();
            if (total != written.Writes)
            {
                throw new InvalidOperationException($"{instrument} {name}: collected {total}, expected {written.Writes}.");
            }

            // Warm-up first, as a benchmark's warm-up iterations: a few collections, then a pause
            // for the JIT's background compilation, so that what is timed is the optimized
            // (tier-1) code a process scraped for minutes runs, not the first registry's tier-0
            // code (seen: the first registry measured was the slowest with tiered compilation on,
            // and not with it off).
            for (int warmUp = 0; warmUp < CollectWarmUps; warmUp++)
            {
                written.Collect();
            }

            Thread.Sleep(CollectWarmUpPauseMilliseconds);
            double best = double.MaxValue;
            for (int repeat = 0; repeat < 3; repeat++)
            {
                long start = Stopwatch.GetTimestamp();
                written.Collect();
                best = Math.Min(best, Stopwatch.GetElapsedTime(start).TotalMilliseconds);
            }

            double slotBytes = (double)registry.SlotBytes / series;
            GC.KeepAlive(registry);
            double? resident = residentBefore is { } r0 && residentAfter is { } r1 ? (double)(r1 - r0) / series : null;
            return ((double)(after - before + registry.SlotBytes) / series, slotBytes, best, registry.PromotedSeriesCount, resident);
        }

        // Creates the instrument and its series, each bound with one integer tag and written once;
        // then the first hotSeries of them written by 2 threads at once for a second.
        static WrittenInstrument WriteSeries(MetricRegistry registry, string instrument, int series, int hotSeries)
        {
            (Action<int> write, Func<int> collect, Func<long> readWrites) = instrument switch
            {
                "histogram" => Bound(registry.CreateHistogram("memory.series"), static (h, tag) => h.Bind(tag), static s => s.Record(1.0), static h => h.Collect().Count, static h => h.Collect().Sum(reading => reading.Count)),
                "exponential-histogram" => Bound(registry.CreateExponentialHistogram("memory.series"), static (h, tag) => h.Bind(tag), static s => s.Record(1.0), static h => h.Collect().Count, static h => h.Collect().Sum(reading => reading.Count)),
                "operation" => Bound(registry.CreateOperationData("memory.series"), static (o, tag) => o.Bind(tag), static s => s.Record(TimeSpan.FromTicks(1)), static o => o.Collect().Count, static o => o.Collect().Sum(reading => reading.Count)),
                _ => Bound(registry.CreateCounter("memory.series"), static (c, tag) => c.Bind(tag), static s => s.Increment(), static c => c.Collect().Count, static c => c.Collect().Sum(reading => reading.Value)),
            };

            for (int i = 0; i < series; i++)
            {
                write(i);
            }

            long writes = series;
            if (hotSeries > 0)
            {
                long[] perThread = new long[2];
                long stopAt = Stopwatch.GetTimestamp() + Stopwatch.Frequency;
                Thread[] threads = [.. Enumerable.Range(0, 2).Select(t => new Thread(() =>
                {
                    long count = 0;
                    while (Stopwatch.GetTimestamp() < stopAt)
                    {
                        for (int i = 0; i < hotSeries; i++)
                        {
                            write(i);
                        }

                        count += hotSeries;
                    }

                    perThread[t] = count;
                }))];
                foreach (Thread thread in threads)
                {
                    thread.Start();
                }

                foreach (Thread thread in threads)
                {
                    thread.Join();
                }

                writes += perThread.Sum();
            }

            return new WrittenInstrument(collect, readWrites, writes);

            // Binds every series up front (so the writes find them without a lookup) and writes series i through its bound handle.
            (Action<int>, Func<int>, Func<long>) Bound<TInstrument, TSeries>(TInstrument created, Func<TInstrument, KeyValuePair<string, object?>, TSeries> bind, Action<TSeries> writeOne, Func<TInstrument, int> collectAll, Func<TInstrument, long> readAll)
            {
                var bound = new TSeries[series];
                for (int i = 0; i < series; i++)
                {
                    bound[i] = bind(created, new KeyValuePair<string, object?>("series", i));
                }

                return (i => writeOne(bound[i]), () => collectAll(created), () => readAll(created));
            }
        }
    }

    // The process's resident memory (VmRSS), or null where /proc/self/status has none.
    internal static long? ResidentBytes() => ProcStatus.Read("/proc/self/status", "VmRSS")[0] is >= 0 and long kilobytes ? kilobytes * 1024 : null;

    // The heap once the previous point's garbage is gone: a compacting full collection, its
    // finalizers, and another, so that memory the previous point left (its registry was
    // ~150 MB at 192 partitions and 100,000 series) is not freed inside this point's window,
    // which made a 1-series point read negative.
    internal static long SettledHeapBytes()
    {
        GC.Collect(GC.MaxGeneration, GCCollectionMode.Forced, blocking: true, compacting: true);
        GC.WaitForPendingFinalizers();
        GC.Collect(GC.MaxGeneration, GCCollectionMode.Forced, blocking: true, compacting: true);
        return GC.GetTotalMemory(forceFullCollection: true);
    }
}
