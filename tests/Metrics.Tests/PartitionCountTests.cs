using ScalableMetrics.Cells;
using ScalableMetrics.Diagnostics;
using ScalableMetrics.Platform;
using ScalableMetrics.Platform.Rseq;
using ScalableMetrics.Tests.Platform;

namespace ScalableMetrics.Tests;

public class PartitionCountTests
{
    [StorageTheory]
    [MemberData(nameof(Storages.PerProcessor), MemberType = typeof(Storages))]
    public void PerProcessorSeriesHasOneRegionPerPartition(string storage)
    {
        var registry = new MetricRegistry(Storages.Options(storage));
        CounterSeries series = registry.CreateCounter("test.regions").Bind();
        Assert.Equal(Storages.PathOf(storage), registry.WritePath);
        if (storage == Storages.PerProcessorInterlocked)
        {
            // Interlocked: one region per partition the cached processor id can pick, no more:
            // one per processor the process may run on (its affinity, read here through the tests'
            // own reading of the mask), or per processor the runtime counts where there is no mask.
            int allowed = OperatingSystem.IsLinux() ? ThreadPinning.AllowedProcessors.Count : Math.Max(1, Environment.ProcessorCount);
            Assert.Equal(allowed, ProcessorId.PartitionCount);
            Assert.Equal(ProcessorId.PartitionCount, registry.PartitionCount);
            Assert.Equal(ProcessorId.PartitionCount, series.RegionCount);
            for (int i = 0; i < 1_000; i++)
            {
                Assert.InRange(ProcessorId.CurrentPartition(), 0, series.RegionCount - 1);
            }
        }
        else
        {
            // Restartable: one region per processor id in the affinity mask, then the overflow region.
            Assert.Equal(RestartableSequence.PartitionCount, registry.PartitionCount);
            Assert.Equal(RestartableSequence.PartitionCount + 1, series.RegionCount);
        }
    }

    [PinningStorageTheory]
    [MemberData(nameof(Storages.PerProcessor), MemberType = typeof(Storages))]
    public unsafe void AnAddPinnedToEachProcessorLandsInThatProcessorsRegion(string storage)
    {
        // A thread pinned to each processor the process may run on adds once: the add lands in
        // the region of the processor's partition and nowhere else (interlocked: the id folded
        // below the partition count; restartable: the id the kernel reports in the rseq area,
        // cpu_id, or a region below the partitions for mm_cid, never the overflow region).
        var registry = new MetricRegistry(Storages.Options(storage));
        CounterSeries series = registry.CreateCounter("test.regions.pinned").Bind();
        SlotRange slots = series.Slots;
        long[] before = new long[slots.Chunk.RegionCount];
        var regionOfProcessor = new Dictionary<int, int>();
        foreach (int processor in ThreadPinning.AllowedProcessors)
        {
            Exception? failure = null;
            var thread = new Thread(() =>
            {
                try
                {
                    ThreadPinning.Pin(processor);
                    series.Add(1);
                }
                catch (Exception e)
                {
                    failure = e;
                }
            });
            thread.Start();
            thread.Join();
            Assert.Null(failure);

            long[] after = [.. Enumerable.Range(0, slots.Chunk.RegionCount).Select(region => *slots.Chunk.SlotAddress(region, slots.FirstSlot))];
            int[] changed = [.. Enumerable.Range(0, after.Length).Where(region => after[region] != before[region])];
            int region = Assert.Single(changed);
            Assert.Equal(1, after[region] - before[region]);
            Assert.InRange(region, 0, registry.PartitionCount - 1);
            if (storage == Storages.PerProcessorRestartable && RestartableSequence.IdField == RseqIdField.CpuId)
            {
                // cpu_id: the processor itself where the allowed processors are 0 to k - 1, else its place in the map.
                Assert.Equal(RestartableSequence.Plan!.RegionOfId is null ? processor : RestartableSequence.Plan.RegionOf(processor), region);
            }

            regionOfProcessor[processor] = region;
            before = after;
        }

        Assert.Equal(ThreadPinning.AllowedProcessors.Count, series.Read());

        // Each processor its own region (mm_cid numbers threads, not processors: one at a time may take any).
        if (storage == Storages.PerProcessorInterlocked || RestartableSequence.IdField == RseqIdField.CpuId)
        {
            Assert.Equal(regionOfProcessor.Count, regionOfProcessor.Values.Distinct().Count());
        }
    }

    [StorageTheory]
    [MemberData(nameof(Storages.WritePaths), MemberType = typeof(Storages))]
    public void ASetPartitionCountSizesEverySeriesAndAddsStayExact(string storage)
    {
        // 192 partitions on whatever machine runs this: the memory layout of a 4-socket box.
        MetricRegistryOptions options = Storages.Options(storage);
        options.PartitionCount = Math.Max(192, new MetricRegistry(Storages.Options(storage)).PartitionCount);
        var registry = new MetricRegistry(options);
        Assert.Equal(options.PartitionCount, registry.PartitionCount);
        PartitionedCounter counter = registry.CreateCounter("test.partitions");
        CounterSeries[] series = [.. Enumerable.Range(0, 1_000).Select(i => counter.Bind(new KeyValuePair<string, object?>("i", i)))];
        int regions = registry.WritePath == WritePath.RestartableSequence ? registry.PartitionCount + 1 : registry.PartitionCount;
        Assert.All(series, s => Assert.Equal(regions, s.RegionCount));

        ConcurrentWriters.Run(2, _ =>
        {
            for (int i = 0; i < series.Length; i++)
            {
                series[i].Add(i);
            }
        });

        Dictionary<TagSet, long> collected = counter.Collect().ToDictionary(r => r.Tags, r => r.Value);
        for (int i = 0; i < series.Length; i++)
        {
            Assert.Equal(2L * i, collected[series[i].Tags]);
            Assert.Equal(2L * i, series[i].Read());
        }
    }

    [StorageTheory]
    [MemberData(nameof(Storages.WritePaths), MemberType = typeof(Storages))]
    public void APartitionCountBelowWhatTheMachineNeedsIsRejected(string storage)
    {
        int needed = new MetricRegistry(Storages.Options(storage)).WritePath == WritePath.PerThread ? 1 : new MetricRegistry(Storages.Options(storage)).PartitionCount;
        foreach (int bad in (int[])[needed - 1, 0, -1, MetricRegistryOptions.MaxPartitionCount + 1])
        {
            MetricRegistryOptions options = Storages.Options(storage);
            options.PartitionCount = bad;
            var e = Assert.Throws<ArgumentOutOfRangeException>(() => new MetricRegistry(options));
            Assert.Equal("options", e.ParamName);
            Assert.Contains(nameof(MetricRegistryOptions.PartitionCount), e.Message);
        }

        MetricRegistryOptions exact = Storages.Options(storage);
        exact.PartitionCount = needed;
        Assert.Equal(needed, new MetricRegistry(exact).PartitionCount);
    }
}
