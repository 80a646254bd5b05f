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
        AppContext.SetSwitch(RestartableSequence.PreferCpuIdSwitchName, preferCpuId);
        var registry = new MetricRegistry(new MetricRegistryOptions { Strategy = PartitionStrategy.PerProcessor, UseRestartableSequences = true, SeriesStorage = SeriesStorage.PerPartition });
        if (registry.WritePath != WritePath.RestartableSequence)
        {
            Console.Error.WriteLine($"no restartable write path: {registry.WritePathReason}");
            return 2;
        }

        CounterSeries counter = registry.CreateCounter("child.counter").Bind();
        UpDownCounterSeries upDown = registry.CreateUpDownCounter("child.updown").Bind();
        DoubleCounterSeries @double = registry.CreateDoubleCounter("child.double").Bind();
        long before = OverflowRegionAdds.Count;
        string? failure = null;
        var thread = new Thread(() =>
        {
            ulong* mask = stackalloc ulong[ProcessorSet.MaxProcessors / 64];
            new Span<ulong>(mask, ProcessorSet.MaxProcessors / 64).Clear();
            mask[target / 64] = 1UL << (target % 64);
            if (Libc.SchedSetAffinity(0, ProcessorSet.MaxProcessors / 8, mask) != 0 || ProcessorId.ReadFromOperatingSystem() != target)
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
}
