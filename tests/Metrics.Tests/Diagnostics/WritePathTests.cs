using ScalableMetrics.Diagnostics;

namespace ScalableMetrics.Tests.Diagnostics;

/// <summary>The registry's write path policy, case by case, stated as a table (<see cref="WritePathPolicy"/>) rather than re-implemented.</summary>
public class WritePathTests
{
    [Theory]
    [MemberData(nameof(WritePathPolicy.Rows), MemberType = typeof(WritePathPolicy))]
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
    public void TheTableHasOneRowForEveryCaseSoALookupFindsOne()
    {
        foreach (PartitionStrategy strategy in Enum.GetValues<PartitionStrategy>())
        {
            foreach ((bool useRestartable, bool processorId, bool restartable) in from a in (bool[])[true, false] from b in (bool[])[true, false] from c in (bool[])[true, false] select (a, b, c))
            {
                WritePath path = WritePathPolicy.For(strategy, useRestartable, processorId, restartable);
                Assert.Equal(path, WritePathChoice.Choose(strategy, useRestartable, processorId, restartable ? null : "unavailable").Path);
            }
        }

        Assert.Equal(16, WritePathPolicy.Rows.Count());
    }

    [Fact]
    public void ARegistryReportsItsWritePathAndItsSeriesUseIt()
    {
        foreach (string storage in (string[])[Storages.PerProcessorRestartable, Storages.PerProcessorInterlocked, Storages.PerThread])
        {
            MetricRegistryOptions options = Storages.Options(storage);
            var registry = new MetricRegistry(options);
            WritePath expected = WritePathPolicy.ForThisProcess(options);
            Assert.Equal(expected, registry.WritePath);
            Assert.Equal(expected == WritePath.PerThread ? PartitionStrategy.PerThread : PartitionStrategy.PerProcessor, registry.Strategy);
            Assert.Equal(registry.WritePath, registry.CreateCounter("test.path").Bind().WritePath);
            Assert.Equal(registry.WritePath, registry.CreateOperationData("test.path.op").Bind().WritePath);
            Assert.False(string.IsNullOrWhiteSpace(registry.WritePathReason));
        }

        Assert.Equal(WritePath.PerThread, new MetricRegistry(Storages.Options(Storages.PerThread)).WritePath);
    }
}
