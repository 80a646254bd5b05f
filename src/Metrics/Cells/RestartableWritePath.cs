using System.Numerics;
using System.Runtime.CompilerServices;
using ScalableMetrics.Diagnostics;
using ScalableMetrics.Platform;
using ScalableMetrics.Platform.Rseq;

namespace ScalableMetrics.Cells;

/// <summary>
/// <see cref="WritePath.RestartableSequence"/>: a plain add to the current processor's region
/// inside a restartable sequence (each cell's <c>TryAddRestartable</c>, a native add of
/// <see cref="RestartableSequence"/>); processor ids past the regions, and a kind whose native add
/// is unavailable, add to the overflow region, the last one, which any processor may write, so
/// atomically. Every add to the overflow region is counted (<see cref="OverflowRegionAdds"/>), out
/// of line, so the inlined adds keep their code.
/// </summary>
internal static unsafe class RestartableWritePath
{
    /// <summary>Regions an arena for this path needs: one per partition, then the overflow region.</summary>
    public static int RegionCount(int partitionCount) => partitionCount + 1;

    /// <summary>Adds to the slot at <paramref name="slotInRegion0"/> in the overflow region (the chunk's last, <paramref name="overflowRegion"/>), atomically and saturating: <see cref="SaturatingCell"/>'s add where its restartable add was refused.</summary>
    /// <remarks>Takes only primitives, so that the inlined add around its call keeps its registers (a struct argument made the JIT spill the series on every add, seen in its output).</remarks>
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static void AddToOverflowRegion(long* slotInRegion0, nint regionStride, int overflowRegion, long value) =>
        CountAndAddAtomic<SaturatingCell, long>(slotInRegion0, regionStride, overflowRegion, value);

    /// <summary>Adds to the slot in the overflow region atomically, wrapping: <see cref="WrappingCell"/>'s add where its restartable add was refused.</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static void AddWrappingToOverflowRegion(long* slotInRegion0, nint regionStride, int overflowRegion, long value) =>
        CountAndAddAtomic<WrappingCell, long>(slotInRegion0, regionStride, overflowRegion, value);

    /// <summary>Adds to the <see cref="double"/> slot in the overflow region atomically: <see cref="DoubleCell"/>'s add where its restartable add was refused.</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static void AddDoubleToOverflowRegion(long* slotInRegion0, nint regionStride, int overflowRegion, double value) =>
        CountAndAddAtomic<DoubleCell, double>(slotInRegion0, regionStride, overflowRegion, value);

    // The overflow add of every kind. Each kind keeps an out-of-line method of its own around it:
    // the bound adds' checked listings (tests/Metrics.Tests/JitListings) name the method they call.
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static void CountAndAddAtomic<TCell, TValue>(long* slotInRegion0, nint regionStride, int overflowRegion, TValue value)
        where TCell : struct, ISlotOperation<TValue>
        where TValue : unmanaged, INumberBase<TValue>
    {
        OverflowRegionAdds.Increment();
        TCell.AddAtomic((long*)((byte*)slotInRegion0 + (overflowRegion * regionStride)), value);
    }
}
