using System.Buffers.Binary;
using ScalableMetrics.Platform;
using ScalableMetrics.Platform.Rseq;

namespace ScalableMetrics.Tests.Platform;

/// <summary>The wrapping and the double restartable adds: their bytes, descriptors and the listings on <see cref="RestartableOperation"/>'s members.</summary>
public class RestartableOperationListingTests
{
    // The inputs of the listings (those of RestartableAddEncoder's own listing).
    private const long RseqOffset = 0x9a0;
    private const int Partitions = 2;
    private const ulong RestartCounter = 0x7f0000000100;
    private const ulong Base = 0x7f0000001000;

    // Descriptor, then code; the code was checked with objdump when written.
    private const string GoldenWrapping =
        "000000000000000030100000007f00001e000000000000005e100000007f0000"
        + "488d05d9ffffff6448890425a8090000648b0425a40900003d02000000731548"
        + "0fafc6488b0c384801d148890c38b801000000c331c0c30fb93d5330055348b8"
        + "00010000007f0000f048ff00e9afffffff";

    private const string GoldenDouble =
        "000000000000000030100000007f0000210000000000000061100000007f0000"
        + "488d05d9ffffff6448890425a8090000648b0425a40900003d02000000731848"
        + "0fafc6f20f100c38f20f58c8f20f110c38b801000000c331c0c30fb93d533005"
        + "5348b800010000007f0000f048ff00e9acffffff";

    [Fact]
    public void EncodesTheGoldenBytesOfTheWrappingAdd() =>
        Assert.Equal(GoldenWrapping, Convert.ToHexStringLower(Encode(RestartableOperation.WrappingAdd).Bytes));

    [Fact]
    public void EncodesTheGoldenBytesOfTheDoubleAdd() =>
        Assert.Equal(GoldenDouble, Convert.ToHexStringLower(Encode(RestartableOperation.DoubleAdd).Bytes));

    [Fact]
    public void TheSaturatingOperationIsTheOriginalEncoding() =>
        Assert.Equal(
            RestartableAddEncoder.Encode(RseqOffset, RseqIdField.MmCid, Partitions, RestartCounter, Base).Bytes,
            RestartableAddEncoder.Encode(RseqOffset, RseqIdField.MmCid, Partitions, RestartCounter, Base, RestartableOperation.SaturatingAdd).Bytes);

    [Theory]
    [InlineData(nameof(RestartableOperation.WrappingAdd), "48890c38")]
    [InlineData(nameof(RestartableOperation.DoubleAdd), "f20f110c38")]
    public void DescriptorEndsTheSectionJustAfterTheCommittingStore(string operation, string commit)
    {
        RestartableAddImage image = Encode(Enum.Parse<RestartableOperation>(operation));
        ReadOnlySpan<byte> descriptor = image.Descriptor;
        Assert.Equal(0u, BinaryPrimitives.ReadUInt32LittleEndian(descriptor));
        Assert.Equal(Base + (ulong)image.StartOffset, BinaryPrimitives.ReadUInt64LittleEndian(descriptor[8..]));
        Assert.Equal((ulong)(image.PostCommitOffset - image.StartOffset), BinaryPrimitives.ReadUInt64LittleEndian(descriptor[16..]));
        Assert.Equal(Base + (ulong)image.AbortOffset, BinaryPrimitives.ReadUInt64LittleEndian(descriptor[24..]));
        Assert.Equal(0x53053053u, BinaryPrimitives.ReadUInt32LittleEndian(image.Bytes.AsSpan(image.AbortOffset - 4)));
        byte[] expected = Convert.FromHexString(commit);
        Assert.Equal(expected, image.Bytes.AsSpan(image.PostCommitOffset - expected.Length, expected.Length).ToArray());

        // The section starts at the id's load, after the arming store.
        Assert.Equal(Convert.FromHexString("648b0425"), image.Bytes.AsSpan(image.StartOffset, 4).ToArray());
    }

    [Fact]
    public void RejectsAnUndefinedOperation() =>
        Assert.Throws<ArgumentOutOfRangeException>("operation", () => RestartableAddEncoder.Encode(RseqOffset, RseqIdField.CpuId, Partitions, RestartCounter, Base, (RestartableOperation)3));

    [ObjdumpTheory]
    [InlineData(nameof(RestartableOperation.WrappingAdd))]
    [InlineData(nameof(RestartableOperation.DoubleAdd))]
    public void DisassemblyMatchesTheListingInTheDocComment(string name)
    {
        RestartableOperation operation = Enum.Parse<RestartableOperation>(name);
        AssemblyListing.AssertDisassemblesTo(
            AssemblyListing.Documented(typeof(RestartableOperation).Assembly, $"F:{typeof(RestartableOperation).FullName}.{operation}"),
            Encode(operation).Code);
    }

    private static RestartableAddImage Encode(RestartableOperation operation) =>
        RestartableAddEncoder.Encode(RseqOffset, RseqIdField.CpuId, Partitions, RestartCounter, Base, operation);
}
