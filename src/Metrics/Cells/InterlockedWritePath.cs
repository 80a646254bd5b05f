using System.Runtime.CompilerServices;
using ScalableMetrics.Diagnostics;
using ScalableMetrics.Platform;

namespace ScalableMetrics.Cells;

/// <summary>
/// <see cref="WritePath.InterlockedProcessorId"/>: an atomic, saturating add to the region of the
/// thread's cached processor id (<see cref="ProcessorId.CurrentPartition"/>). A cached id can be
/// stale after the thread moves, so two processors may write one region for a moment: correct,
/// only contended.
/// </summary>
internal static unsafe class InterlockedWritePath
{
    /// <summary>The calling thread's slot: <paramref name="slotInRegion0"/> + partition × <paramref name="regionStride"/>.</summary>
    /// <remarks>The partition is below <see cref="ProcessorId.PartitionCount"/>, which the arena's region count is at least, so no bounds check.</remarks>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static long* CurrentSlot(long* slotInRegion0, nint regionStride) =>
        (long*)((byte*)slotInRegion0 + (ProcessorId.CurrentPartition() * regionStride));

    /// <summary>Adds <paramref name="value"/> (zero or positive) to the calling processor's slot.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static void Add(long* slotInRegion0, nint regionStride, long value) =>
        SaturatingCell.AddAtomic(CurrentSlot(slotInRegion0, regionStride), value);

    /// <summary>Adds <paramref name="value"/> (any sign) to the calling processor's slot, wrapping (<see cref="SlotSum.Wrapping"/>).</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static void AddWrapping(long* slotInRegion0, nint regionStride, long value) =>
        WrappingCell.AddAtomic(CurrentSlot(slotInRegion0, regionStride), value);

    /// <summary>Adds <paramref name="value"/> to the calling processor's <see cref="double"/> slot (<see cref="SlotSum.Double"/>).</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static void AddDouble(long* slotInRegion0, nint regionStride, double value) =>
        DoubleCell.AddAtomic(CurrentSlot(slotInRegion0, regionStride), value);
}
