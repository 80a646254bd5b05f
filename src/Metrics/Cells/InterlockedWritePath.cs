using System.Diagnostics;
using System.Runtime.CompilerServices;
using ScalableMetrics.Diagnostics;
using ScalableMetrics.Platform;

namespace ScalableMetrics.Cells;

/// <summary>
/// <see cref="WritePath.InterlockedProcessorId"/>: an atomic add (<see cref="ISlotOperation{TValue}.AddAtomic"/>)
/// to the region of the thread's cached processor id (<see cref="ProcessorId.CurrentPartition"/>).
/// A cached id can be stale after the thread moves, so two processors may write one region for a
/// moment: correct, only contended.
/// </summary>
internal static unsafe class InterlockedWritePath
{
    /// <summary>The calling thread's slot: <paramref name="slotInRegion0"/> + partition × <paramref name="regionStride"/>.</summary>
    /// <remarks>The partition is below <see cref="ProcessorId.PartitionCount"/>, which the arena's region count is at least, so no bounds check.</remarks>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static long* CurrentSlot(long* slotInRegion0, nint regionStride)
    {
        int partition = ProcessorId.CurrentPartition();
        Debug.Assert((uint)partition < (uint)ProcessorId.PartitionCount, "a partition is below the partition count, which no arena has fewer regions than");
        return (long*)((byte*)slotInRegion0 + (partition * regionStride));
    }
}
