using ScalableMetrics.Platform;
using ScalableMetrics.Platform.Rseq;

namespace ScalableMetrics.Tests.Platform;

/// <summary>
/// The restartable path's regions follow the processors the process may run on, whatever their
/// ids, on either id field; and no region is ever given to two processors.
/// </summary>
public class RseqPartitionBoundsTests
{
    [Theory]
    [InlineData(false, false)]
    [InlineData(true, false)]
    [InlineData(true, true)]
    public void ProcessorsFromZeroTakeTheirIdsAsRegions(bool kernelFillsMmCid, bool preferCpuId)
    {
        // A whole 16-processor box, whatever it could hot-plug: 16 regions, no lookup.
        RseqRegionPlan plan = RseqPartitionBounds.Choose(Set(Enumerable.Range(0, 16), possible: "0-127"), kernelFillsMmCid, preferCpuId);

        Assert.Equal(RseqIdField.CpuId, plan.IdField);
        Assert.Equal(16, plan.PartitionCount);
        Assert.Null(plan.RegionOfId);
        Assert.Equal(Enumerable.Range(0, 16), Enumerable.Range(0, 16).Select(plan.RegionOf));
        Assert.Equal(-1, plan.RegionOf(16));
        Assert.Equal(-1, plan.RegionOf(-1));
    }

    [Fact]
    public void ACpusetPastZeroWithoutMmCidGetsARegionPerProcessorThroughAMap()
    {
        // CPUs 184 to 191 of a 192-processor host, on a kernel without mm_cid: 8 regions, not 192.
        RseqRegionPlan plan = RseqPartitionBounds.Choose(Set(Enumerable.Range(184, 8), possible: "0-191"), kernelFillsMmCid: false, preferCpuId: false);

        Assert.Equal(RseqIdField.CpuId, plan.IdField);
        Assert.Equal(8, plan.PartitionCount);
        Assert.NotNull(plan.RegionOfId);
        Assert.Equal(Enumerable.Range(0, 8), Enumerable.Range(184, 8).Select(plan.RegionOf));
        Assert.All(Enumerable.Range(0, 184).Append(192).Append(-1), id => Assert.Equal(-1, plan.RegionOf(id)));
        Assert.Contains("8 regions by cpu_id through a map", plan.Reason);
        Assert.Contains("184-191", plan.Reason);
    }

    [Fact]
    public void ACpusetPastZeroWithMmCidUsesMmCidUnlessCpuIdIsPreferred()
    {
        ProcessorSet cpuset = Set([10, 11, 106, 107], possible: "0-191");

        RseqRegionPlan byDefault = RseqPartitionBounds.Choose(cpuset, kernelFillsMmCid: true, preferCpuId: false);
        RseqRegionPlan preferred = RseqPartitionBounds.Choose(cpuset, kernelFillsMmCid: true, preferCpuId: true);

        Assert.Equal((RseqIdField.MmCid, 4), (byDefault.IdField, byDefault.PartitionCount));
        Assert.Null(byDefault.RegionOfId);
        Assert.Equal((RseqIdField.CpuId, 4), (preferred.IdField, preferred.PartitionCount));
        Assert.Equal([0, 1, 2, 3], new[] { 10, 11, 106, 107 }.Select(preferred.RegionOf));
        Assert.Contains(RestartableSequence.PreferCpuIdSwitchName, preferred.Reason);
    }

    [Fact]
    public void PossibleProcessorsFarPastTheOnlineOnesCostNothing()
    {
        // A VM that could hot-plug 128 processors and has 4 online: 4 regions.
        RseqRegionPlan plan = RseqPartitionBounds.Choose(Set(Enumerable.Range(0, 4), possible: "0-127", online: "0-3"), kernelFillsMmCid: false, preferCpuId: false);

        Assert.Equal((RseqIdField.CpuId, 4), (plan.IdField, plan.PartitionCount));
        Assert.Contains("4 of 4 online, possible 0-127", plan.Reason);
    }

    [Fact]
    public void TheMapPlacesASocketsProcessorsSideBySide()
    {
        // Processors 8 to 15 alternate between two sockets: socket 0's take regions 0 to 3.
        RseqRegionPlan plan = RseqPartitionBounds.Choose(ProcessorRegionsTests.Interleaved(Enumerable.Range(8, 8)), kernelFillsMmCid: false, preferCpuId: false);

        Assert.Equal([0, 1, 2, 3], new[] { 8, 10, 12, 14 }.Select(plan.RegionOf));
        Assert.Equal([4, 5, 6, 7], new[] { 9, 11, 13, 15 }.Select(plan.RegionOf));
    }

    [Theory]
    [InlineData(1)]
    [InlineData(2)]
    [InlineData(3)]
    [InlineData(4)]
    public void NoMaskGivesOneRegionToTwoProcessors(int seed)
    {
        // Random masks over 8,192 ids, with and without topology: every allowed processor has a
        // region of its own below the count, and every other id none.
        var random = new Random(seed);
        for (int round = 0; round < 50; round++)
        {
            int[] allowed = [.. Enumerable.Range(0, random.Next(1, 300)).Select(_ => random.Next(0, ProcessorSet.MaxProcessors)).Distinct()];
            ProcessorSet processors = round % 2 == 0 ? Set(allowed) : ProcessorRegionsTests.Interleaved(allowed);
            RseqRegionPlan plan = RseqPartitionBounds.Choose(processors, kernelFillsMmCid: false, preferCpuId: false);

            int[] regions = [.. allowed.Select(plan.RegionOf)];
            Assert.Equal(allowed.Length, plan.PartitionCount);
            Assert.All(regions, region => Assert.InRange(region, 0, plan.PartitionCount - 1));
            Assert.Equal(regions.Length, regions.Distinct().Count());
            int outside = Enumerable.Range(0, ProcessorSet.MaxProcessors).Except(allowed).Count(id => plan.RegionOf(id) >= 0);
            Assert.Equal(0, outside);
        }
    }

    [Fact]
    public void CpuListsParseAndFormat()
    {
        Assert.True(ProcessorSet.TryParseList("0-3,8,10-11\n", out List<int> ids));
        Assert.Equal([0, 1, 2, 3, 8, 10, 11], ids);
        Assert.Equal("0-3,8,10-11", ProcessorSet.FormatList(ids));
        Assert.False(ProcessorSet.TryParseList("", out _));
        Assert.False(ProcessorSet.TryParseList("3-1", out _));
        Assert.False(ProcessorSet.TryParseList("0-8192", out _));
        Assert.False(ProcessorSet.TryParseList("a", out _));
    }

    [Fact]
    public void BothWritePathsSizeByTheSameReadingOfTheProcessorsTheProcessMayUse()
    {
        // Read here independently of the code under test: the affinity /proc reports for the
        // process (Cpus_allowed_list, its main thread's mask: every thread of this test process has it).
        ProcessorSet processors = ProcessorSet.Current;
        if (OperatingSystem.IsLinux())
        {
            string line = File.ReadAllLines("/proc/self/status").Single(l => l.StartsWith("Cpus_allowed_list:", StringComparison.Ordinal));
            Assert.True(ProcessorSet.TryParseList(line["Cpus_allowed_list:".Length..], out List<int> allowed));
            List<int> online = ProcessorSet.TryParseList(File.ReadAllText("/sys/devices/system/cpu/online"), out List<int> on) ? on : allowed;
            Assert.Equal(allowed.Intersect(online), processors.Allowed);
        }

        Assert.Equal(processors.Count, ProcessorId.PartitionCount);
        if (RestartableSequence.IsSupported)
        {
            Assert.Equal(processors.Count, RestartableSequence.PartitionCount);
        }
    }

    private static ProcessorSet Set(IEnumerable<int> allowed, string? possible = null, string? online = null) =>
        new(allowed, possible, online, static _ => null);
}
