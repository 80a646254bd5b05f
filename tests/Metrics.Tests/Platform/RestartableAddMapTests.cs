using ScalableMetrics.Platform;
using ScalableMetrics.Platform.Rseq;

namespace ScalableMetrics.Tests.Platform;

/// <summary>The restartable add that looks its region up in a map (<see cref="RestartableAddEncoder.EncodeMapped"/>).</summary>
public unsafe class RestartableAddMapTests
{
    // The inputs of the listing on EncodeMapped.
    private const long RseqOffset = 0x9a0;
    private const int Partitions = 2;
    private const ulong RestartCounter = 0x7f0000000100;
    private const ulong Base = 0x7f0000001000;
    private static readonly ushort[] s_map = [RseqPartitionBounds.NoRegion, 1, 0];

    [ObjdumpFact]
    public void DisassemblyMatchesTheListingInTheDocComment() =>
        AssemblyListing.AssertDisassemblesTo(
            AssemblyListing.Documented(typeof(RestartableAddEncoder).Assembly, $"M:{typeof(RestartableAddEncoder).FullName}.EncodeMapped(System.Int64,{typeof(RseqIdField).FullName},System.Int32,System.UInt64,System.UInt64,{typeof(RestartableOperation).FullName},System.ReadOnlySpan{{System.UInt16}})"),
            Encode(RestartableOperation.SaturatingAdd).Code);

    [Theory]
    [InlineData(nameof(RestartableOperation.SaturatingAdd))]
    [InlineData(nameof(RestartableOperation.WrappingAdd))]
    [InlineData(nameof(RestartableOperation.DoubleAdd))]
    public void TheMapFollowsTheCodeAndTheSectionReadsIt(string operationName)
    {
        RestartableOperation operation = Enum.Parse<RestartableOperation>(operationName);
        RestartableAddImage image = Encode(operation);

        Assert.Equal(0, image.MapOffset % sizeof(ushort));
        ushort[] placed = System.Runtime.InteropServices.MemoryMarshal.Cast<byte, ushort>(image.Bytes.AsSpan(image.MapOffset, s_map.Length * sizeof(ushort))).ToArray();
        Assert.Equal(s_map, placed);
        Assert.Equal(image.Bytes.Length, image.MapOffset + (s_map.Length * sizeof(ushort)));

        // lea rcx, [rip + rel32], just before the section, points at the map.
        int lea = image.StartOffset - 7;
        Assert.Equal(Convert.FromHexString("488d0d"), image.Bytes.AsSpan(lea, 3).ToArray());
        Assert.Equal(image.MapOffset, image.StartOffset + BitConverter.ToInt32(image.Bytes, lea + 3));

        // The unmapped encoding is unchanged by the map's existence: the map is the only addition.
        Assert.Equal(0, RestartableAddEncoder.Encode(RseqOffset, RseqIdField.CpuId, Partitions, RestartCounter, Base, operation).MapOffset);
    }

    [Fact]
    public void AMapGivingOneRegionToTwoIdsIsRefused()
    {
        ArgumentException e = Assert.Throws<ArgumentException>(() => RestartableAddEncoder.EncodeMapped(RseqOffset, RseqIdField.CpuId, Partitions, RestartCounter, Base, RestartableOperation.SaturatingAdd, [0, 1, 0]));
        Assert.Equal("regionOfId", e.ParamName);
        Assert.Throws<ArgumentException>("regionOfId", () => RestartableAddEncoder.EncodeMapped(RseqOffset, RseqIdField.CpuId, Partitions, RestartCounter, Base, RestartableOperation.SaturatingAdd, []));

        // Ids with no region (at or past the count) may be many.
        RestartableAddEncoder.EncodeMapped(RseqOffset, RseqIdField.CpuId, Partitions, RestartCounter, Base, RestartableOperation.SaturatingAdd, [RseqPartitionBounds.NoRegion, 0, RseqPartitionBounds.NoRegion, 1, 7]);
    }

    [RseqFact]
    public void TheMappedAddLandsInTheRegionOfTheThreadsProcessorOrIsRefused()
    {
        // A live function over a map that gives the processor the thread runs on region 1 and
        // every other id none: the add lands in region 1 when the thread stays there, and is
        // refused (nothing added) when it has moved. On a thread of its own, which disarms before
        // the functions are unmapped: a thread's rseq area keeps pointing at the last descriptor it
        // armed, and the kernel would fault on reading an unmapped one at its next preemption, even
        // in the thread's exit after Join has returned.
        string? failure = RseqArea.TryGetOffset(out long offset);
        Assert.Null(failure);
        long* restarts = (long*)System.Runtime.InteropServices.NativeMemory.AllocZeroed(sizeof(long));
        var functions = new List<RestartableAddFunction>();
        (int Cpu, int Before, int Added, long[] Slots)? seen = null;
        var thread = new Thread(() =>
        {
            try
            {
                AddUntilSeen();
            }
            finally
            {
                RseqArea.DisarmCurrentThread(offset);
            }
        });
        try
        {
            thread.Start();
            thread.Join();
            Assert.True(seen is not null, $"the thread kept moving (last failure: {failure})");
            (int cpu, int on, int addedThere, long[] landed) = seen.Value;
            Assert.Equal(on == cpu ? [0L, 5, 0] : [0L, 0, 0], landed);
            Assert.Equal(on == cpu ? 1 : 0, addedThere);
        }
        finally
        {
            functions.ForEach(static f => f.Dispose());
            System.Runtime.InteropServices.NativeMemory.Free(restarts);
        }

        void AddUntilSeen()
        {
            long[] slots = GC.AllocateArray<long>(3, pinned: true);
            for (int attempt = 0; attempt < 100 && seen is null; attempt++)
            {
                int cpu = ProcessorId.ReadFromOperatingSystem();
                ushort[] map = new ushort[cpu + 2];
                map.AsSpan().Fill(RseqPartitionBounds.NoRegion);
                map[cpu] = 1;
                RestartableAddFunction? function = RestartableAddFunction.TryCreate(offset, new RseqRegionPlan(RseqIdField.CpuId, 2, map, "test"), restarts, RestartableOperation.SaturatingAdd, out failure);
                if (function is null)
                {
                    // The self-test ran on another processor than the one mapped: try again.
                    continue;
                }

                functions.Add(function);
                slots.AsSpan().Clear();
                int before = ProcessorId.ReadFromOperatingSystem();
                int added;
                fixed (long* first = slots)
                {
                    added = function.Add(first, sizeof(long), 5);
                }

                if (ProcessorId.ReadFromOperatingSystem() == before)
                {
                    seen = (cpu, before, added, [.. slots]);
                }
            }
        }
    }

    private static RestartableAddImage Encode(RestartableOperation operation) =>
        RestartableAddEncoder.EncodeMapped(RseqOffset, RseqIdField.CpuId, Partitions, RestartCounter, Base, operation, s_map);
}
