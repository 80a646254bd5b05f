using System.Globalization;
using ScalableMetrics.Cells;
using ScalableMetrics.Diagnostics;
using ScalableMetrics.Platform;
using ScalableMetrics.Platform.Interop;
using ScalableMetrics.Platform.Rseq;

namespace ScalableMetrics.Tests.Cells;

/// <summary>
/// The child process of <see cref="OverflowRegionAddsTests"/>, started confined to one processor
/// (<c>taskset</c>): its regions are sized for that one. A thread then moves itself to another
/// processor (allowed to it by its cgroup, not by its start-up mask: a processor "allowed after
/// start") and adds there, where it has no region: every add goes to the overflow region.
/// </summary>
internal static unsafe class OverflowRegionChild
{
    /// <summary>The verb that makes <see cref="Program.Main"/> run this child.</summary>
    public const string Verb = "overflow-region";

    /// <summary>The adds the moved thread makes of each kind.</summary>
    public const int Adds = 1_000;

    /// <summary>Prints <c>field partitions overflowBefore overflowAfter counter upDown double</c>; exit code 0, or 2 where it could not set up.</summary>
    /// <param name="preferCpuId">Whether to set <see cref="RestartableSequence.PreferCpuIdSwitchName"/> first.</param>
    /// <param name="target">The processor the thread moves to.</param>
    public static int Run(bool preferCpuId, int target)
    {
        if (RestartableRegistry(preferCpuId, SeriesStorage.PerPartition) is not { } registry)
        {
            return 2;
        }

        CounterSeries counter = registry.CreateCounter("child.counter").Bind();
        UpDownCounterSeries upDown = registry.CreateUpDownCounter("child.updown").Bind();
        DoubleCounterSeries @double = registry.CreateDoubleCounter("child.double").Bind();
        long before = OverflowRegionAdds.Count;
        string? failure = null;
        var thread = new Thread(() =>
        {
            if (!MoveCurrentThreadTo(target))
            {
                failure = $"could not move to processor {target}";
                return;
            }

            for (int i = 0; i < Adds; i++)
            {
                counter.Add(1);
                upDown.Add(-1);
                @double.Add(0.5);
            }
        });
        thread.Start();
        thread.Join();
        if (failure is not null)
        {
            Console.Error.WriteLine(failure);
            return 2;
        }

        Console.WriteLine(string.Create(CultureInfo.InvariantCulture, $"{RestartableSequence.IdField} {registry.PartitionCount} {before} {OverflowRegionAdds.Count} {counter.Read()} {upDown.Read()} {@double.Read()}"));
        return 0;
    }

    /// <summary>The verb that makes <see cref="Program.Main"/> run <see cref="RunWithSparePartitions"/>.</summary>
    public const string SparePartitionsVerb = "overflow-region-spare-partitions";

    /// <summary>The partitions the registries of <see cref="RunWithSparePartitions"/> ask for: more than the one processor the child starts on.</summary>
    public const int SparePartitionCount = 4;

    /// <summary>
    /// <see cref="MetricRegistryOptions.PartitionCount"/> above the machine's: a registry of
    /// <see cref="SparePartitionCount"/> partitions on the restartable path and one on the
    /// Interlocked path, whose series a thread moved to <paramref name="target"/> (allowed after
    /// start) adds to, <see cref="Adds"/> times each. Prints
    /// <c>partitions machinePartitions overflowBefore overflowAfter counter upDown double interlockedRegions</c>,
    /// the last the Interlocked counter's value in each of its regions, comma-separated.
    /// </summary>
    /// <param name="preferCpuId">Whether to set <see cref="RestartableSequence.PreferCpuIdSwitchName"/> first.</param>
    /// <param name="target">The processor the thread moves to.</param>
    /// <returns>0, or 2 where it could not set up.</returns>
    public static int RunWithSparePartitions(bool preferCpuId, int target)
    {
        if (RestartableRegistry(preferCpuId, SeriesStorage.PerPartition, SparePartitionCount) is not { } registry)
        {
            return 2;
        }

        var interlockedRegistry = new MetricRegistry(new MetricRegistryOptions { Strategy = PartitionStrategy.PerProcessor, UseRestartableSequences = false, SeriesStorage = SeriesStorage.PerPartition, PartitionCount = SparePartitionCount });
        if (interlockedRegistry.WritePath != WritePath.InterlockedProcessorId)
        {
            Console.Error.WriteLine($"no Interlocked write path: {interlockedRegistry.WritePathReason}");
            return 2;
        }

        CounterSeries counter = registry.CreateCounter("child.counter").Bind();
        UpDownCounterSeries upDown = registry.CreateUpDownCounter("child.updown").Bind();
        DoubleCounterSeries @double = registry.CreateDoubleCounter("child.double").Bind();
        CounterSeries interlocked = interlockedRegistry.CreateCounter("child.interlocked").Bind();
        long before = OverflowRegionAdds.Count;
        string? failure = null;
        var thread = new Thread(() =>
        {
            if (!MoveCurrentThreadTo(target))
            {
                failure = $"could not move to processor {target}";
                return;
            }

            for (int i = 0; i < Adds; i++)
            {
                counter.Add(1);
                upDown.Add(-1);
                @double.Add(0.5);
                interlocked.Add(1);
            }
        });
        thread.Start();
        thread.Join();
        if (failure is not null)
        {
            Console.Error.WriteLine(failure);
            return 2;
        }

        SlotRange slots = interlocked.Slots;
        string regions = string.Join(',', Enumerable.Range(0, slots.Chunk.RegionCount).Select(region => (*slots.Chunk.SlotAddress(region, slots.FirstSlot)).ToString(CultureInfo.InvariantCulture)));
        Console.WriteLine(string.Create(CultureInfo.InvariantCulture, $"{registry.PartitionCount} {ProcessorId.PartitionCount} {before} {OverflowRegionAdds.Count} {counter.Read()} {upDown.Read()} {@double.Read()} {regions}"));
        return 0;
    }

    /// <summary>The verb that makes <see cref="Program.Main"/> run <see cref="RunPromotingMidway"/>.</summary>
    public const string PromotionVerb = "overflow-region-promotion";

    /// <summary>The adds each writer of <see cref="RunPromotingMidway"/> makes of each kind.</summary>
    public const int PromotionAdds = 20_000;

    /// <summary>
    /// Exactness where every route meets: an adaptive registry's counter, up-down counter, double
    /// counter and histogram series, written by one thread on the start processor and one on
    /// <paramref name="target"/> (which has no region: the overflow region), each series promoted
    /// midway by the second, with a reader reading throughout. Prints
    /// <c>overflowBefore overflowAfter counter upDown double histogramCount histogramSum readsThatWentDown</c>.
    /// </summary>
    /// <param name="preferCpuId">Whether to set <see cref="RestartableSequence.PreferCpuIdSwitchName"/> first.</param>
    /// <param name="target">The processor the second writer moves to.</param>
    /// <returns>0, or 2 where it could not set up.</returns>
    public static int RunPromotingMidway(bool preferCpuId, int target)
    {
        if (RestartableRegistry(preferCpuId, SeriesStorage.Adaptive) is not { } registry)
        {
            return 2;
        }

        CounterSeries counter = registry.CreateCounter("child.counter").Bind();
        UpDownCounterSeries upDown = registry.CreateUpDownCounter("child.updown").Bind();
        DoubleCounterSeries @double = registry.CreateDoubleCounter("child.double").Bind();
        PartitionedHistogram histogram = registry.CreateHistogram("child.histogram", boundaries: [1]);
        HistogramSeries histogramSeries = histogram.Bind();
        long before = OverflowRegionAdds.Count;
        string? failure = null;
        long wentDown = 0;
        using var stop = new CancellationTokenSource();
        var reader = new Thread(() =>
        {
            (long Counter, long UpDown, double Double, long Count) previous = (0, 0, 0, 0);
            while (!stop.IsCancellationRequested)
            {
                // Each read at least the one before (an up-down counter's that only goes down, at most).
                (long Counter, long UpDown, double Double, long Count) current = (counter.Read(), upDown.Read(), @double.Read(), histogram.Collect().Single().Count);
                if (current.Counter < previous.Counter || current.UpDown > previous.UpDown || current.Double < previous.Double || current.Count < previous.Count)
                {
                    Interlocked.Increment(ref wentDown);
                }

                previous = current;
            }
        });
        reader.Start();
        Thread[] writers = [.. Enumerable.Range(0, 2).Select(writer => new Thread(() =>
        {
            if (writer == 1 && !MoveCurrentThreadTo(target))
            {
                failure = $"could not move to processor {target}";
            }

            for (int i = 0; i < PromotionAdds; i++)
            {
                if (writer == 1 && i == PromotionAdds / 2)
                {
                    counter.TryPromote();
                    upDown.TryPromote();
                    @double.TryPromote();
                    histogramSeries.TryPromote();
                }

                counter.Add(1);
                upDown.Add(-1);
                @double.Add(0.5);
                histogramSeries.Record(2);
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

        stop.Cancel();
        reader.Join();
        if (failure is not null)
        {
            Console.Error.WriteLine(failure);
            return 2;
        }

        HistogramReading reading = histogram.Collect().Single();
        Console.WriteLine(string.Create(CultureInfo.InvariantCulture, $"{before} {OverflowRegionAdds.Count} {counter.Read()} {upDown.Read()} {@double.Read()} {reading.Count} {reading.Sum} {wentDown}"));
        return 0;
    }

    // A registry on the restartable write path, with cpu_id preferred or not; null, with the reason
    // on standard error, where the process has no restartable path.
    private static MetricRegistry? RestartableRegistry(bool preferCpuId, SeriesStorage storage, int? partitionCount = null)
    {
        AppContext.SetSwitch(RestartableSequence.PreferCpuIdSwitchName, preferCpuId);
        var registry = new MetricRegistry(new MetricRegistryOptions { Strategy = PartitionStrategy.PerProcessor, UseRestartableSequences = true, SeriesStorage = storage, PartitionCount = partitionCount });
        if (registry.WritePath != WritePath.RestartableSequence)
        {
            Console.Error.WriteLine($"no restartable write path: {registry.WritePathReason}");
            return null;
        }

        return registry;
    }

    // Confines the calling thread to processor target; false where it could not, or is not there.
    private static bool MoveCurrentThreadTo(int target)
    {
        ulong* mask = stackalloc ulong[ProcessorSet.MaxProcessors / 64];
        new Span<ulong>(mask, ProcessorSet.MaxProcessors / 64).Clear();
        mask[target / 64] = 1UL << (target % 64);
        return Libc.SchedSetAffinity(0, ProcessorSet.MaxProcessors / 8, mask) == 0 && ProcessorId.ReadFromOperatingSystem() == target;
    }
}
