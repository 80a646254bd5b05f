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
        var regions = new ProcessorRegions([10, 11, 106, 107], partitionCount: 4);

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
    public void TheProcessMapGivesEveryAllowedProcessorAPartitionOfItsOwn()
    {
        ProcessorSet processors = ProcessorSet.Current;
        ProcessorRegions regions = ProcessorRegions.For(processors, processors.Count);

        Assert.Equal(processors.Allowed.Count, processors.Allowed.Select(regions.PartitionOf).Distinct().Count());
        for (int id = 0; id < 256; id++)
        {
            Assert.InRange(regions.PartitionOf(id), 0, processors.Count - 1);
        }
    }

    [Fact]
    public void InterleavedSocketsTakePartitionsSocketBySocket()
    {
        // Ids alternate between two sockets (as on many 2-socket boxes): socket 0's processors take
        // partitions 0 to 3, socket 1's 4 to 7.
        ProcessorSet processors = Interleaved(Enumerable.Range(0, 8));
        ProcessorRegions regions = ProcessorRegions.For(processors, processors.Count);

        Assert.Equal([0, 4, 1, 5, 2, 6, 3, 7], Enumerable.Range(0, 8).Select(regions.PartitionOf));
    }

    [Fact]
    public void ALateProcessorJoinsItsCoresPartitionElseOneOfItsSockets()
    {
        // Allowed at start: processors 0 to 7, each a core of its own (cores 0 to 3 of socket 0,
        // then of socket 1). Later: 8 is the second thread of socket 1's core 2 (processor 6's);
        // 9 and 10 are new cores of socket 0, which take socket 0's partitions in turn.
        var topology = new Dictionary<int, ProcessorTopology>();
        for (int id = 0; id < 8; id++)
        {
            topology[id] = new ProcessorTopology(id / 4, id % 4);
        }

        topology[8] = new ProcessorTopology(1, 2);
        topology[9] = new ProcessorTopology(0, 9);
        topology[10] = new ProcessorTopology(0, 10);
        var processors = new ProcessorSet(Enumerable.Range(0, 8), "0-63", "0-10", id => topology.TryGetValue(id, out ProcessorTopology t) ? t : null);
        ProcessorRegions regions = ProcessorRegions.For(processors, processors.Count);

        Assert.Equal(regions.PartitionOf(6), regions.PartitionOf(8));
        Assert.Equal(0, regions.PartitionOf(9));
        Assert.Equal(1, regions.PartitionOf(10));
        Assert.Equal(0, regions.PartitionOf(9));
    }

    [Fact]
    public void ASocketOfflineAtStartSpreadsItsProcessorsOverThePartitions()
    {
        // Sockets 0 and 2 at start (processors 0-3 and 8-11); socket 1 (4-7) comes online later:
        // its processors share partitions in turn, not all the first one.
        var processors = new ProcessorSet([0, 1, 2, 3, 8, 9, 10, 11], null, null, id => new ProcessorTopology(id / 4, id % 4));
        ProcessorRegions regions = ProcessorRegions.For(processors, processors.Count);

        Assert.Equal([0, 1, 2, 3], new[] { 4, 5, 6, 7 }.Select(regions.PartitionOf));
    }

    // Processors whose ids alternate between sockets 0 and 1, each its own core.
    internal static ProcessorSet Interleaved(IEnumerable<int> allowed) =>
        new(allowed, null, null, id => new ProcessorTopology(id % 2, id / 2));

    [Fact]
    public void APartitionCountBelowOneIsRefused()
    {
        ArgumentOutOfRangeException e = Assert.Throws<ArgumentOutOfRangeException>(() => new ProcessorRegions([0], partitionCount: 0));
        Assert.Equal("partitionCount", e.ParamName);
    }
}
