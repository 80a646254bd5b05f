using ScalableMetrics.Platform;

namespace ScalableMetrics.Tests.Platform;

/// <summary>
/// Processor ids map to partitions densely: the processors a process may run on take one
/// partition each in id order, whatever their ids' residues, and a processor first seen later
/// takes the next one, for good.
/// </summary>
public sealed class ProcessorRegionsTests
{
    [Fact]
    public void ACpusetOfWholeCoresUsesEveryPartition()
    {
        // With id % 4, {10, 11, 106, 107} fold onto partitions 2 and 3 and leave 0 and 1 idle.
        var regions = new ProcessorRegions([107, 10, 106, 11], partitionCount: 4);

        Assert.Equal([0, 1, 2, 3], new[] { 10, 11, 106, 107 }.Select(regions.PartitionOf));
    }

    [Fact]
    public void AProcessorFirstSeenLaterTakesTheNextPartitionAndKeepsIt()
    {
        var regions = new ProcessorRegions([4, 5], partitionCount: 4);

        int late = regions.PartitionOf(300);
        int later = regions.PartitionOf(2);

        Assert.Equal(2, late);
        Assert.Equal(3, later);
        Assert.Equal(0, regions.PartitionOf(4));
        Assert.Equal(late, regions.PartitionOf(300));
        Assert.Equal(0, regions.PartitionOf(7)); // every partition taken: folded from the start
    }

    [Fact]
    public void MoreProcessorsThanPartitionsFoldInIdOrder()
    {
        var regions = new ProcessorRegions(Enumerable.Range(0, 10), partitionCount: 4);

        Assert.Equal([0, 1, 2, 3, 0, 1, 2, 3, 0, 1], Enumerable.Range(0, 10).Select(regions.PartitionOf));
    }

    [Fact]
    public void ConcurrentFirstLookupsAgreeOnOnePartitionPerProcessor()
    {
        var regions = new ProcessorRegions([], partitionCount: 64);
        int[][] seen = new int[4][];
        Parallel.For(0, 4, t => seen[t] = [.. Enumerable.Range(0, 64).Select(i => regions.PartitionOf((i * 7 + t) % 64))]);

        int[] expected = [.. Enumerable.Range(0, 64).Select(regions.PartitionOf)];
        for (int t = 0; t < 4; t++)
        {
            Assert.Equal(Enumerable.Range(0, 64).Select(i => expected[(i * 7 + t) % 64]), seen[t]);
        }

        Assert.Equal(64, expected.Distinct().Count());
    }

    [Fact]
    public void TheProcessMapGivesEveryAllowedProcessorAPartitionBelowTheCount()
    {
        ProcessorRegions regions = ProcessorRegions.ForProcess(Environment.ProcessorCount);

        for (int id = 0; id < 256; id++)
        {
            Assert.InRange(regions.PartitionOf(id), 0, Environment.ProcessorCount - 1);
        }
    }

    [Fact]
    public void APartitionCountBelowOneIsRefused()
    {
        ArgumentOutOfRangeException e = Assert.Throws<ArgumentOutOfRangeException>(() => new ProcessorRegions([0], partitionCount: 0));
        Assert.Equal("partitionCount", e.ParamName);
    }
}
