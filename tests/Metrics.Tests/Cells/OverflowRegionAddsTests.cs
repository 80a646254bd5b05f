using System.Diagnostics;
using System.Globalization;
using ScalableMetrics.Cells;
using ScalableMetrics.Platform.Rseq;
using ScalableMetrics.Tests.JitListings;
using ScalableMetrics.Tests.Platform;
using Xunit.Abstractions;

namespace ScalableMetrics.Tests.Cells;

/// <summary>
/// Every add that goes to the overflow region is counted (<see cref="OverflowRegionAdds"/>), on
/// every kind of slot, and still lands exactly once.
/// </summary>
[Collection(ProcessWideStateCollection.Name)]
public unsafe class OverflowRegionAddsTests(ITestOutputHelper output)
{
    [Fact]
    public void EachOverflowAddOfEveryKindIsCountedOnce()
    {
        // The out-of-line adds the series call when the restartable add is refused, on three
        // regions of one slot: each lands in the last region, and the count moves by one per add.
        long[] regions = GC.AllocateArray<long>(3 * 16, pinned: true);
        long before = OverflowRegionAdds.Count;
        fixed (long* slot = regions)
        {
            const nint Stride = 16 * sizeof(long);
            for (int i = 0; i < 10; i++)
            {
                RestartableWritePath.AddToOverflowRegion<SaturatingCell, long>(slot, Stride, 2, 3);
                RestartableWritePath.AddToOverflowRegion<WrappingCell, long>(slot + 1, Stride, 2, -2);
                RestartableWritePath.AddToOverflowRegion<DoubleCell, double>(slot + 2, Stride, 2, 0.25);
            }
        }

        Assert.Equal(30, OverflowRegionAdds.Count - before);
        Assert.Equal(30, regions[32]);
        Assert.Equal(-20, regions[33]);
        Assert.Equal(2.5, BitConverter.Int64BitsToDouble(regions[34]));
        Assert.All(regions[..32], value => Assert.Equal(0, value));
    }

    [Fact]
    public void ConcurrentOverflowAddsAreAllCounted()
    {
        long[] regions = GC.AllocateArray<long>(2 * 16, pinned: true);
        long before = OverflowRegionAdds.Count;
        long* slot = (long*)System.Runtime.CompilerServices.Unsafe.AsPointer(ref regions[0]);
        ConcurrentWriters.Run(4, _ =>
        {
            for (int i = 0; i < 10_000; i++)
            {
                RestartableWritePath.AddToOverflowRegion<SaturatingCell, long>(slot, 16 * sizeof(long), 1, 1);
            }
        });

        Assert.Equal(40_000, OverflowRegionAdds.Count - before);
        Assert.Equal(40_000, regions[16]);
    }

    [OverflowChildTheory]
    [InlineData(false)]
    [InlineData(true)]
    public void AThreadOnAProcessorAllowedAfterStartAddsToTheOverflowRegionAndIsCounted(bool preferCpuId)
    {
        // A child confined to one processor at start has one region (by cpu_id: the processor
        // itself where it is processor 0, else through the map, cpu_id preferred to mm_cid); a
        // thread that moves to another processor has none there, so each of its adds, of each
        // kind, goes to the overflow region: counted, and exact.
        string[] fields = RunChild(OverflowRegionChild.Verb, preferCpuId);
        Assert.Equal(nameof(RseqIdField.CpuId), fields[0]);
        Assert.Equal("1", fields[1]);
        Assert.Equal(3L * OverflowRegionChild.Adds, long.Parse(fields[3], CultureInfo.InvariantCulture) - long.Parse(fields[2], CultureInfo.InvariantCulture));
        Assert.Equal(OverflowRegionChild.Adds, long.Parse(fields[4], CultureInfo.InvariantCulture));
        Assert.Equal(-OverflowRegionChild.Adds, long.Parse(fields[5], CultureInfo.InvariantCulture));
        Assert.Equal(OverflowRegionChild.Adds / 2.0, double.Parse(fields[6], CultureInfo.InvariantCulture));
    }

    [OverflowChildTheory]
    [InlineData(false)]
    [InlineData(true)]
    public void PromotionMidwayWithTheOverflowRegionInUseAndAReaderThroughoutLosesNothing(bool preferCpuId)
    {
        // Compact, then promoted midway by the writer whose processor has no region: its adds
        // before promotion go to the compact slots, after it to the overflow region, and the other
        // writer's to its processor's region; a reader reads all along.
        string[] fields = RunChild(OverflowRegionChild.PromotionVerb, preferCpuId);
        const int Adds = OverflowRegionChild.PromotionAdds;
        long overflowAdds = long.Parse(fields[1], CultureInfo.InvariantCulture) - long.Parse(fields[0], CultureInfo.InvariantCulture);
        Assert.Equal(2L * Adds, long.Parse(fields[2], CultureInfo.InvariantCulture));
        Assert.Equal(-2L * Adds, long.Parse(fields[3], CultureInfo.InvariantCulture));
        Assert.Equal(Adds, double.Parse(fields[4], CultureInfo.InvariantCulture));
        Assert.Equal(2L * Adds, long.Parse(fields[5], CultureInfo.InvariantCulture));
        Assert.Equal(4.0 * Adds, double.Parse(fields[6], CultureInfo.InvariantCulture));
        Assert.Equal(0, long.Parse(fields[7], CultureInfo.InvariantCulture));

        // At least the second half of the moved writer's adds (five words a round: the counter,
        // the up-down counter, the double, the histogram's count and sum), at most all of them
        // (where the write-rate rule promoted earlier than midway).
        Assert.InRange(overflowAdds, 5L * (Adds / 2), 5L * Adds);
    }

    [OverflowChildTheory]
    [InlineData(false)]
    [InlineData(true)]
    public void APartitionCountAboveTheMachinesGivesAProcessorAllowedAfterStartNoSpareRegion(bool preferCpuId)
    {
        // MetricRegistryOptions.PartitionCount: the partitions past what the machine needs stay
        // unwritten; a processor allowed after start adds to the overflow region, or shares a
        // partition. The child starts on one processor with registries of four partitions; the
        // thread moved to another processor finds none of the spare regions: on the restartable
        // path each of its adds, of each kind, goes to the overflow region, counted and exact; on
        // the Interlocked path they all go to the partition of the one processor at start.
        string[] fields = RunChild(OverflowRegionChild.SparePartitionsVerb, preferCpuId);
        Assert.Equal(OverflowRegionChild.SparePartitionCount.ToString(CultureInfo.InvariantCulture), fields[0]);
        Assert.Equal("1", fields[1]);
        Assert.Equal(3L * OverflowRegionChild.Adds, long.Parse(fields[3], CultureInfo.InvariantCulture) - long.Parse(fields[2], CultureInfo.InvariantCulture));
        Assert.Equal(OverflowRegionChild.Adds, long.Parse(fields[4], CultureInfo.InvariantCulture));
        Assert.Equal(-OverflowRegionChild.Adds, long.Parse(fields[5], CultureInfo.InvariantCulture));
        Assert.Equal(OverflowRegionChild.Adds / 2.0, double.Parse(fields[6], CultureInfo.InvariantCulture));
        long[] interlockedRegions = [.. fields[7].Split(',').Select(value => long.Parse(value, CultureInfo.InvariantCulture))];
        Assert.Equal([OverflowRegionChild.Adds, 0, 0, 0], interlockedRegions);
    }

    // Runs the child's verb confined to one allowed processor at start, its moved thread on the
    // other (which way round by preferCpuId), and returns the fields of its one line of output.
    private string[] RunChild(string verb, bool preferCpuId)
    {
        IReadOnlyList<int> allowed = ThreadPinning.AllowedProcessors;
        (int start, int target) = preferCpuId ? (allowed[1], allowed[0]) : (allowed[0], allowed[1]);
        var info = new ProcessStartInfo("taskset", ["-c", start.ToString(CultureInfo.InvariantCulture), JitListing.DotnetHost(), "exec", typeof(OverflowRegionChild).Assembly.Location, verb, preferCpuId.ToString(), target.ToString(CultureInfo.InvariantCulture)])
        {
            RedirectStandardOutput = true,
            RedirectStandardError = true,
        };
        using Process child = Process.Start(info)!;
        Task<string> error = child.StandardError.ReadToEndAsync();
        string line = child.StandardOutput.ReadToEnd().Trim();
        Assert.True(child.WaitForExit(TimeSpan.FromSeconds(60)), "the child did not exit within 60 s");
        Assert.True(child.ExitCode == 0, $"the child exited with {child.ExitCode}: {line}{error.Result}");
        output.WriteLine($"{verb}: started on {start}, moved a thread to {target}: {line}");
        return line.Split(' ');
    }
}

/// <summary>A theory that needs restartable sequences, two processors the process may use and <c>taskset</c> (util-linux) on the PATH; skipped with the reason elsewhere.</summary>
public sealed class OverflowChildTheoryAttribute : TheoryAttribute
{
    public OverflowChildTheoryAttribute()
    {
        Skip = new RseqTwoProcessorsFactAttribute().Skip;
        if (Skip is null && !(Environment.GetEnvironmentVariable("PATH") ?? "").Split(Path.PathSeparator).Any(directory => File.Exists(Path.Combine(directory, "taskset"))))
        {
            Skip = "needs taskset (util-linux) on the PATH";
        }
    }
}
