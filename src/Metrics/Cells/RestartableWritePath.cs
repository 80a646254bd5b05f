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

    /// <summary>
    /// Adds to the slot at <paramref name="slotInRegion0"/> in the overflow region (the chunk's last,
    /// <paramref name="overflowRegion"/>) with <typeparamref name="TCell"/>'s atomic add, and counts
    /// the add (<see cref="OverflowRegionAdds"/>): a kind's add where its restartable add was refused.
    /// </summary>
    /// <remarks>
    /// Out of line, so that the inlined add around its call keeps its code; instantiated over a
    /// struct, so the runtime compiles one copy per kind, which the bound adds' checked listings
    /// (tests/Metrics.Tests/JitListings) name. Takes only primitives besides, so that the inlined add
    /// keeps its registers (a struct argument made the JIT spill the series on every add, seen in
    /// its output).
    /// </remarks>
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static void AddToOverflowRegion<TCell, TValue>(long* slotInRegion0, nint regionStride, int overflowRegion, TValue value)
        where TCell : struct, ISlotOperation<TValue>
        where TValue : unmanaged, INumberBase<TValue>
    {
        OverflowRegionAdds.Increment();
        TCell.AddAtomic((long*)((byte*)slotInRegion0 + (overflowRegion * regionStride)), value);
    }
}
