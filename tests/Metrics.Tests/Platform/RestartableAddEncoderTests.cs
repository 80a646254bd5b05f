using System.Buffers.Binary;
using ScalableMetrics.Platform;
using ScalableMetrics.Platform.Rseq;

namespace ScalableMetrics.Tests.Platform;

public class RestartableAddEncoderTests
{
    // The inputs of the listing in RestartableAddEncoder's doc comment.
    private const long RseqOffset = 0x9a0;
    private const int Partitions = 2;
    private const ulong RestartCounter = 0x7f0000000100;
    private const ulong Base = 0x7f0000001000;

    // Hand-assembled (descriptor, then code), checked with objdump when written; the two differ
    // only in the id's displacement (fs:0x9a4 cpu_id, fs:0x9b8 mm_cid).
    private const string GoldenCpuId =
        "00000000000000003a100000007f000022000000000000006c100000007f0000"
        + "49b8ffffffffffffff7f488d05cfffffff6448890425a8090000648b0425a409"
        + "00003d020000007319480fafc6488b0c384801d1490f40c848890c38b8010000"
        + "00c331c0c30fb93d5330055348b800010000007f0000f048ff00e9a1ffffff";

    private const string GoldenMmCid =
        "00000000000000003a100000007f000022000000000000006c100000007f0000"
        + "49b8ffffffffffffff7f488d05cfffffff6448890425a8090000648b0425b809"
        + "00003d020000007319480fafc6488b0c384801d1490f40c848890c38b8010000"
        + "00c331c0c30fb93d5330055348b800010000007f0000f048ff00e9a1ffffff";

    [Fact]
    public void EncodesTheGoldenBytesForCpuId() =>
        Assert.Equal(GoldenCpuId, Convert.ToHexStringLower(Encode(RseqIdField.CpuId).Bytes));

    [Fact]
    public void EncodesTheGoldenBytesForMmCid() =>
        Assert.Equal(GoldenMmCid, Convert.ToHexStringLower(Encode(RseqIdField.MmCid).Bytes));

    [Fact]
    public void DescriptorPointsAtTheSectionItsCommitAndASignedAbort()
    {
        RestartableAddImage image = Encode(RseqIdField.CpuId);
        ReadOnlySpan<byte> descriptor = image.Descriptor;
        Assert.Equal(0u, BinaryPrimitives.ReadUInt32LittleEndian(descriptor));
        Assert.Equal(Base + (ulong)image.StartOffset, BinaryPrimitives.ReadUInt64LittleEndian(descriptor[8..]));
        Assert.Equal((ulong)(image.PostCommitOffset - image.StartOffset), BinaryPrimitives.ReadUInt64LittleEndian(descriptor[16..]));
        Assert.Equal(Base + (ulong)image.AbortOffset, BinaryPrimitives.ReadUInt64LittleEndian(descriptor[24..]));
        Assert.Equal(0x53053053u, BinaryPrimitives.ReadUInt32LittleEndian(image.Bytes.AsSpan(image.AbortOffset - 4)));

        // The commit is the last instruction of the section: a store, mov [rax+rdi], rcx.
        Assert.Equal(Convert.FromHexString("48890c38"), image.Bytes.AsSpan(image.PostCommitOffset - 4, 4).ToArray());
    }

    [Fact]
    public void RejectsAnUnalignedBaseAndAnEmptyPartitionCount()
    {
        Assert.Throws<ArgumentException>("baseAddress", () => RestartableAddEncoder.Encode(RseqOffset, RseqIdField.CpuId, Partitions, RestartCounter, Base + 8));
        Assert.Throws<ArgumentOutOfRangeException>("partitionCount", () => RestartableAddEncoder.Encode(RseqOffset, RseqIdField.CpuId, 0, RestartCounter, Base));
        Assert.Throws<ArgumentOutOfRangeException>("rseqOffset", () => RestartableAddEncoder.Encode(int.MaxValue, RseqIdField.CpuId, Partitions, RestartCounter, Base));
    }

    [ObjdumpFact]
    public void DisassemblyMatchesTheListingInTheDocComment() =>
        AssemblyListing.AssertDisassemblesTo(
            AssemblyListing.Documented(typeof(RestartableAddEncoder).Assembly, $"T:{typeof(RestartableAddEncoder).FullName}"),
            Encode(RseqIdField.CpuId).Code);

    private static RestartableAddImage Encode(RseqIdField field) =>
        RestartableAddEncoder.Encode(RseqOffset, field, Partitions, RestartCounter, Base);
}
