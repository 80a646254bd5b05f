using ScalableMetrics.Cells;
using ScalableMetrics.Diagnostics;
using ScalableMetrics.Platform;
using ScalableMetrics.Platform.Rseq;

namespace ScalableMetrics.TopologyCheck;

/// <summary>Runs the steps <see cref="CheckOptions"/> names and counts the failures.</summary>
internal static class Check
{
    public static int Run(string[] args, TextWriter output)
    {
        CheckOptions options;
        try
        {
            options = CheckOptions.Parse(args);
        }
        catch (Exception e) when (e is ArgumentException or FormatException)
        {
            output.WriteLine($"usage error: {e.Message}");
            return 2;
        }

        // Before anything reads the library's static state.
        AppContext.SetSwitch(RestartableSequence.PreferCpuIdSwitchName, options.PreferCpuId);
        var failures = new List<string>();
        void Expect(bool condition, string what)
        {
            output.WriteLine($"  {(condition ? "ok" : "FAIL")}: {what}");
            if (!condition)
            {
                failures.Add(what);
            }
        }

        IReadOnlyList<int> allowed = Cpus.AllowedNow();
        // Series per partition from creation, as the partitions and the overflow region are what is
        // checked; the adaptive storage (compact until contended) is checked for exactness below too.
        var restartable = new MetricRegistry(new MetricRegistryOptions { Strategy = PartitionStrategy.PerProcessor, UseRestartableSequences = true, SeriesStorage = SeriesStorage.PerPartition });
        var interlocked = new MetricRegistry(new MetricRegistryOptions { Strategy = PartitionStrategy.PerProcessor, UseRestartableSequences = false, SeriesStorage = SeriesStorage.PerPartition });
        string field = RestartableSequence.IdField == RseqIdField.MmCid ? "mm_cid" : "cpu_id";
        output.WriteLine($"topology: online {Cpus.Format(Cpus.Online())}, allowed {Cpus.Format(allowed)} ({allowed.Count}), possible {File.ReadAllText("/sys/devices/system/cpu/possible").Trim()}; prefer cpu_id: {options.PreferCpuId}");
        output.WriteLine($"library: restartable {restartable.WritePath}, {restartable.PartitionCount} partitions (+1 overflow), id field {field}{(RestartableSequence.Plan?.RegionOfId is null ? "" : " through the map")}; interlocked {interlocked.WritePath}, {interlocked.PartitionCount} partitions");
        output.WriteLine($"library says: {restartable.PartitionReason}");
        output.WriteLine($"partitions={restartable.PartitionCount}");

        Expect(restartable.WritePath == WritePath.RestartableSequence, $"restartable sequences in use ({restartable.WritePathReason})");
        Expect(interlocked.WritePath == WritePath.InterlockedProcessorId, "Interlocked write path in use");
        Expect(restartable.PartitionCount == allowed.Count, $"restartable partitions {restartable.PartitionCount} = processors the process may use {allowed.Count}");
        Expect(interlocked.PartitionCount == allowed.Count, $"Interlocked partitions {interlocked.PartitionCount} = processors the process may use {allowed.Count}");
        if (options.ExpectPartitions is { } expected)
        {
            Expect(restartable.PartitionCount == expected && interlocked.PartitionCount == expected, $"partitions = {expected}, as expected");
        }

        if (options.ExpectField is { } expectedField)
        {
            Expect(field == expectedField, $"id field {field} = {expectedField}, as expected");
        }

        if (options.Threads > 0)
        {
            MetricRegistry[] registries =
            [
                restartable,
                interlocked,
                new MetricRegistry(new MetricRegistryOptions { Strategy = PartitionStrategy.PerThread, SeriesStorage = SeriesStorage.PerPartition }),
                new MetricRegistry(new MetricRegistryOptions { Strategy = PartitionStrategy.PerProcessor, UseRestartableSequences = true, SeriesStorage = SeriesStorage.Adaptive }),
                new MetricRegistry(new MetricRegistryOptions { Strategy = PartitionStrategy.PerProcessor, UseRestartableSequences = false, SeriesStorage = SeriesStorage.Adaptive }),
            ];
            foreach (MetricRegistry registry in registries)
            {
                // Processors go offline and back under the per-processor paths; a per-thread add does not depend on them.
                Exactness.Run(registry, options.Threads, options.Adds, registry.WritePath == WritePath.PerThread ? [] : options.CycleCpus, output, Expect);
            }
        }

        if (options.OnlineLate.Count > 0)
        {
            LateProcessors.Run(restartable, options.OnlineLate, options.Adds, output, Expect);
        }

        output.WriteLine($"restarts {RestartableSequence.RestartCount}, overflow-region adds {OverflowRegionAdds.Count}");
        output.WriteLine(failures.Count == 0 ? "check: passed" : $"check: {failures.Count} FAILED: {string.Join("; ", failures)}");
        return failures.Count == 0 ? 0 : 1;
    }
}
