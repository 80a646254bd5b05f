using System.Runtime.CompilerServices;
using ScalableMetrics.Diagnostics;
using ScalableMetrics.Platform;
using ScalableMetrics.Platform.Rseq;

namespace ScalableMetrics.Cells;

/// <summary>
/// <see cref="WritePath.RestartableSequence"/>: a plain add to the current processor's region
/// inside a restartable sequence; processor ids past the regions add to the overflow region, the
/// last one, which any processor may write, so atomically. Every add to the overflow region is
/// counted (<see cref="OverflowRegionAdds"/>), out of line, so the inlined adds keep their code.
/// </summary>
internal static unsafe class RestartableWritePath
{
    /// <summary>Regions an arena for this path needs: one per partition, then the overflow region.</summary>
    public static int RegionCount(int partitionCount) => partitionCount + 1;

    /// <summary>Adds <paramref name="value"/> (zero or positive) to the slot at <paramref name="slotInRegion0"/> in the calling processor's region, saturating.</summary>
    /// <returns><see langword="false"/>, with nothing added, where the processor has no region: then call <see cref="AddToOverflowRegion"/>.</returns>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static bool TryAdd(long* slotInRegion0, nint regionStride, long value) =>
        RestartableSequence.TryAdd(slotInRegion0, regionStride, value);

    /// <summary>Adds to the slot at <paramref name="slotInRegion0"/> in the overflow region (the chunk's last, <paramref name="overflowRegion"/>), atomically and saturating.</summary>
    /// <remarks>Takes only primitives, so that the inlined add around its call keeps its registers (a struct argument made the JIT spill the series on every add, seen in its output).</remarks>
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static void AddToOverflowRegion(long* slotInRegion0, nint regionStride, int overflowRegion, long value)
    {
        OverflowRegionAdds.Increment();
        SaturatingCell.AddAtomic((long*)((byte*)slotInRegion0 + (overflowRegion * regionStride)), value);
    }

    /// <summary>Adds <paramref name="value"/> (any sign) to the slot in the calling processor's region, wrapping (<see cref="SlotSum.Wrapping"/>).</summary>
    /// <returns><see langword="false"/>, with nothing added, where the processor has no region: then call <see cref="AddWrappingToOverflowRegion"/>.</returns>
    /// <remarks>Also <see langword="false"/> for every add where the process has no wrapping restartable add (<see cref="RestartableSequence.WrappingAddUnavailableReason"/>): the adds then go to the overflow region (exact, contended).</remarks>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static bool TryAddWrapping(long* slotInRegion0, nint regionStride, long value) =>
        RestartableSequence.TryAddWrapping(slotInRegion0, regionStride, value);

    /// <summary>Adds to the slot in the overflow region atomically, wrapping.</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static void AddWrappingToOverflowRegion(long* slotInRegion0, nint regionStride, int overflowRegion, long value)
    {
        OverflowRegionAdds.Increment();
        WrappingCell.AddAtomic((long*)((byte*)slotInRegion0 + (overflowRegion * regionStride)), value);
    }

    /// <summary>Adds <paramref name="value"/> to the <see cref="double"/> slot in the calling processor's region (<see cref="SlotSum.Double"/>).</summary>
    /// <returns><see langword="false"/>, with nothing added, where the processor has no region: then call <see cref="AddDoubleToOverflowRegion"/>.</returns>
    /// <remarks>Also <see langword="false"/> for every add where the process has no double restartable add (<see cref="RestartableSequence.DoubleAddUnavailableReason"/>): the adds then go to the overflow region (exact, contended).</remarks>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static bool TryAddDouble(long* slotInRegion0, nint regionStride, double value) =>
        RestartableSequence.TryAddDouble(slotInRegion0, regionStride, value);

    /// <summary>Adds to the <see cref="double"/> slot in the overflow region atomically.</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static void AddDoubleToOverflowRegion(long* slotInRegion0, nint regionStride, int overflowRegion, double value)
    {
        OverflowRegionAdds.Increment();
        DoubleCell.AddAtomic((long*)((byte*)slotInRegion0 + (overflowRegion * regionStride)), value);
    }
}
