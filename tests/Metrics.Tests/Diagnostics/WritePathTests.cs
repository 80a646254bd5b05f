using ScalableMetrics.Diagnostics;

namespace ScalableMetrics.Tests.Diagnostics;

/// <summary>The registry's write path policy, case by case, stated as a table rather than re-implemented.</summary>
public class WritePathTests
{
    [Theory]
    [InlineData(PartitionStrategy.PerThread, true, true, null, WritePath.PerThread)]
    [InlineData(PartitionStrategy.PerThread, false, false, "no rseq", WritePath.PerThread)]
    [InlineData(PartitionStrategy.PerProcessor, true, false, null, WritePath.PerThread)]
    [InlineData(PartitionStrategy.PerProcessor, false, false, "no rseq", WritePath.PerThread)]
    [InlineData(PartitionStrategy.PerProcessor, false, true, null, WritePath.InterlockedProcessorId)]
    [InlineData(PartitionStrategy.PerProcessor, true, true, "glibc too old", WritePath.InterlockedProcessorId)]
    [InlineData(PartitionStrategy.PerProcessor, true, true, null, WritePath.RestartableSequence)]
    public void TheWritePathIsTheStrategyAskedForAsTheProcessCanCarryItOut(PartitionStrategy strategy, bool useRestartable, bool processorId, string? restartableUnsupported, WritePath expected)
    {
        (WritePath path, string reason) = WritePathChoice.Choose(strategy, useRestartable, processorId, restartableUnsupported);
        Assert.Equal(expected, path);
        Assert.False(string.IsNullOrWhiteSpace(reason));
        if (path == WritePath.InterlockedProcessorId && restartableUnsupported is not null && useRestartable)
        {
            Assert.Contains(restartableUnsupported, reason);
        }
    }

    [Fact]
    public void ARegistryReportsItsWritePathAndItsSeriesUseIt()
    {
        foreach (string storage in (string[])[Storages.PerProcessorRestartable, Storages.PerProcessorInterlocked, Storages.PerThread])
        {
            var registry = new MetricRegistry(Storages.Options(storage));
            Assert.Equal(registry.WritePath == WritePath.PerThread ? PartitionStrategy.PerThread : PartitionStrategy.PerProcessor, registry.Strategy);
            Assert.Equal(registry.WritePath, registry.CreateCounter("test.path").Bind().WritePath);
            Assert.Equal(registry.WritePath, registry.CreateOperationData("test.path.op").Bind().WritePath);
            Assert.False(string.IsNullOrWhiteSpace(registry.WritePathReason));
        }

        Assert.Equal(WritePath.PerThread, new MetricRegistry(Storages.Options(Storages.PerThread)).WritePath);
    }
}
