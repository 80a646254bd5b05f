using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using ScalableMetrics.Platform;

namespace ScalableMetrics.Tests;

public class PaddedCellLayoutTests
{
    [Fact]
    public void CellIs128BytesWithItsDataAtTheEnd()
    {
        Assert.Equal(128, Unsafe.SizeOf<PaddedCell>());
        Assert.Equal(112, (int)Marshal.OffsetOf<PaddedCell>(nameof(PaddedCell.Count)));
        Assert.Equal(120, (int)Marshal.OffsetOf<PaddedCell>(nameof(PaddedCell.Sum)));
    }

    [Fact]
    public void FirstCellsDataIsAFullCellPastTheArrayLengthWord()
    {
        var cells = new PaddedCell[4];
        ref byte lengthWord = ref Unsafe.As<RawArray>(cells).Length;
        Assert.Equal(cells.Length, Unsafe.As<byte, int>(ref lengthWord));

        // 128 bytes apart means never in the same 128-byte (two-line) block, wherever the array lies.
        Assert.True(Unsafe.ByteOffset(ref lengthWord, ref Unsafe.As<long, byte>(ref cells[0].Sum)) >= 128);
        Assert.True(Unsafe.ByteOffset(ref lengthWord, ref Unsafe.As<long, byte>(ref cells[0].Count)) >= 64 + 40);
        for (int i = 1; i < cells.Length; i++)
        {
            Assert.Equal(128, (int)Unsafe.ByteOffset(ref cells[i - 1].Sum, ref cells[i].Sum));
        }
    }

    [Fact]
    public void PerProcessorSeriesHasOneCellPerProcessor()
    {
        Assert.Equal(Environment.ProcessorCount, ProcessorId.PartitionCount);
        if (OperatingSystem.IsLinux() || OperatingSystem.IsWindows())
        {
            Assert.True(ProcessorId.IsSupported);
        }

        for (int i = 0; i < 1_000; i++)
        {
            Assert.InRange(ProcessorId.CurrentPartition(), 0, ProcessorId.PartitionCount - 1);
        }

        Assert.InRange(ProcessorId.ReadFromOperatingSystem(), 0, 4096);
    }

    // The runtime lays an array out as: method table pointer, then the length (padded to 8 bytes
    // on 64-bit), then the elements. Reinterpreting the array as this class exposes the length word.
    private sealed class RawArray
    {
        public byte Length;
    }
}
