using ScalableMetrics.Diagnostics;
using ScalableMetrics.Platform;
using ScalableMetrics.Platform.Rseq;

namespace ScalableMetrics.Tests;

public class PartitionCountTests
{
    [ProcessorIdFact]
    public void PerProcessorSeriesHasOneRegionPerPartition()
    {
        // Interlocked: one region per partition the cached processor id can pick, no more.
        var interlocked = new MetricRegistry(Storages.Options(Storages.PerProcessorInterlocked));
        CounterSeries series = interlocked.CreateCounter("test.regions").Bind();
        Assert.Equal(WritePath.InterlockedProcessorId, interlocked.WritePath);
        Assert.Equal(ProcessorId.PartitionCount, interlocked.PartitionCount);
        Assert.Equal(ProcessorId.PartitionCount, series.RegionCount);
        for (int i = 0; i < 1_000; i++)
        {
            Assert.InRange(ProcessorId.CurrentPartition(), 0, series.RegionCount - 1);
        }

        // Restartable: one region per processor id in the affinity mask, then the overflow region.
        var restartable = new MetricRegistry(Storages.Options(Storages.PerProcessorRestartable));
        if (restartable.WritePath == WritePath.RestartableSequence)
        {
            Assert.Equal(RestartableSequence.PartitionCount, restartable.PartitionCount);
            Assert.Equal(RestartableSequence.PartitionCount + 1, restartable.CreateCounter("test.regions").Bind().RegionCount);
        }
    }

    [StorageTheory]
    [MemberData(nameof(Storages.All), MemberType = typeof(Storages))]
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
    [MemberData(nameof(Storages.All), MemberType = typeof(Storages))]
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
