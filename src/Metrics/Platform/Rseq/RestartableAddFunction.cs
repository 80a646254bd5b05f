namespace ScalableMetrics.Platform.Rseq;

/// <summary>
/// One restartable add placed in executable memory and checked: the encoder's image for this
/// process's rseq offset, written by <see cref="ExecutableMemory"/> and self-tested before it is
/// handed out.
/// </summary>
/// <remarks>
/// The process uses one per <see cref="RestartableOperation"/>, for its life
/// (<see cref="RestartableSequence"/>); benchmarks make more, e.g. one per id field, to compare them. Thread-safe to call; dispose only when no thread can
/// call it any more, and every thread that called it has disarmed
/// (<see cref="RseqArea.DisarmCurrentThread"/>): a thread's area keeps the last descriptor it
/// armed, and the kernel reads that descriptor at the thread's next preemption. A thread that has
/// ended is not enough: <see cref="Thread.Join()"/> returns while the thread may still run its exit
/// in the runtime and the C library, and a preemption there, after the unmap, faults
/// (<c>SIGSEGV</c>: the test host crashed so, now and then, while the tests' threads only ended).
/// </remarks>
internal sealed unsafe class RestartableAddFunction : IDisposable
{
    // The self-tests' slots hold a start value before one add, so that the add shows both where
    // the value landed and what the operation did to it: saturating, long.MaxValue - 1 + 5 stops
    // at long.MaxValue; wrapping, it wraps to long.MinValue + 3; double, 0.5 + 0.25 is exactly 0.75.
    private const long SaturatingStart = long.MaxValue - 1;
    private const long LongValue = 5;
    private const double DoubleStart = 0.5;
    private const double DoubleValue = 0.25;

    private readonly ExecutableMemory _memory;

    private RestartableAddFunction(ExecutableMemory memory, int entryOffset, RseqRegionPlan plan, RestartableOperation operation)
    {
        _memory = memory;
        EntryAddress = memory.Address + entryOffset;
        Plan = plan;
        Operation = operation;
    }

    /// <summary>
    /// The function, where <see cref="Operation"/> is <see cref="RestartableOperation.SaturatingAdd"/>
    /// or <see cref="RestartableOperation.WrappingAdd"/>: <c>(slotInRegion0, regionStride, value) → 1 added, 0 not</c>; see <see cref="RestartableAddEncoder"/>.
    /// </summary>
    public delegate* unmanaged[Cdecl, SuppressGCTransition]<long*, nint, long, int> Add => (delegate* unmanaged[Cdecl, SuppressGCTransition]<long*, nint, long, int>)EntryAddress;

    /// <summary>The function, where <see cref="Operation"/> is <see cref="RestartableOperation.DoubleAdd"/>: <c>(slotInRegion0, regionStride, value) → 1 added, 0 not</c>.</summary>
    public delegate* unmanaged[Cdecl, SuppressGCTransition]<long*, nint, double, int> AddDouble => (delegate* unmanaged[Cdecl, SuppressGCTransition]<long*, nint, double, int>)EntryAddress;

    /// <summary>What the function does to the slot.</summary>
    public RestartableOperation Operation { get; }

    /// <summary>How the function picks its region: the id, the regions, the map where there is one.</summary>
    public RseqRegionPlan Plan { get; }

    /// <summary>The id that picks the region.</summary>
    public RseqIdField IdField => Plan.IdField;

    /// <summary>The regions: an id with none below this number is not added.</summary>
    public int PartitionCount => Plan.PartitionCount;

    /// <summary>The address of the function's entry point (for disassembly and the W^X check).</summary>
    public nint EntryAddress { get; }

    /// <summary>Creates and self-tests a saturating add; nothing stays mapped where it fails.</summary>
    /// <param name="rseqOffset">The process's <c>__rseq_offset</c>.</param>
    /// <param name="idField">The id that picks the region.</param>
    /// <param name="partitionCount">The number of regions.</param>
    /// <param name="restartCounter">The native <see langword="long"/> the abort path increments; must outlive the function.</param>
    /// <param name="failure">Why none was made; null on success.</param>
    /// <returns>The function, or null.</returns>
    public static RestartableAddFunction? TryCreate(long rseqOffset, RseqIdField idField, int partitionCount, long* restartCounter, out string? failure) =>
        TryCreate(rseqOffset, idField, partitionCount, restartCounter, RestartableOperation.SaturatingAdd, out failure);

    /// <summary>Creates and self-tests the function of <paramref name="operation"/>; nothing stays mapped where it fails.</summary>
    /// <param name="rseqOffset">The process's <c>__rseq_offset</c>.</param>
    /// <param name="idField">The id that picks the region.</param>
    /// <param name="partitionCount">The number of regions.</param>
    /// <param name="restartCounter">The native <see langword="long"/> the abort path increments; must outlive the function.</param>
    /// <param name="operation">What the function does to the slot.</param>
    /// <param name="failure">Why none was made; null on success.</param>
    /// <returns>The function, or null.</returns>
    public static RestartableAddFunction? TryCreate(long rseqOffset, RseqIdField idField, int partitionCount, long* restartCounter, RestartableOperation operation, out string? failure) =>
        TryCreate(rseqOffset, new RseqRegionPlan(idField, partitionCount, null, string.Empty), restartCounter, operation, out failure);

    /// <summary>Creates and self-tests the function of <paramref name="operation"/> for <paramref name="plan"/>, with its map where it has one; nothing stays mapped where it fails.</summary>
    /// <param name="rseqOffset">The process's <c>__rseq_offset</c>.</param>
    /// <param name="plan">The id, the regions and the map (<see cref="RseqPartitionBounds.Choose"/>).</param>
    /// <param name="restartCounter">The native <see langword="long"/> the abort path increments; must outlive the function.</param>
    /// <param name="operation">What the function does to the slot.</param>
    /// <param name="failure">Why none was made; null on success.</param>
    /// <returns>The function, or null.</returns>
    public static RestartableAddFunction? TryCreate(long rseqOffset, RseqRegionPlan plan, long* restartCounter, RestartableOperation operation, out string? failure)
    {
        ArgumentNullException.ThrowIfNull(plan);
        RestartableAddImage? image = null;
        ExecutableMemory? memory = ExecutableMemory.TryCreate(
            address =>
            {
                image = plan.RegionOfId is { } map
                    ? RestartableAddEncoder.EncodeMapped(rseqOffset, plan.IdField, plan.PartitionCount, (ulong)restartCounter, address, operation, map)
                    : RestartableAddEncoder.Encode(rseqOffset, plan.IdField, plan.PartitionCount, (ulong)restartCounter, address, operation);
                return image.Bytes;
            },
            maxLength: 4096 + ((plan.RegionOfId?.Length ?? 0) * sizeof(ushort)),
            address =>
            {
                // Disarmed after the self-test's adds, which leave the descriptor armed: where the
                // test fails, the memory is unmapped at once, before the kernel would clear it.
                try
                {
                    return SelfTest(address + image!.EntryOffset, operation, rseqOffset, plan);
                }
                finally
                {
                    RseqArea.DisarmCurrentThread(rseqOffset);
                }
            },
            out failure);
        return memory is null ? null : new RestartableAddFunction(memory, image!.EntryOffset, plan, operation);
    }

    /// <summary>Unmaps the function; see the remarks.</summary>
    public void Dispose() => _memory.Dispose();

    // Adds once through the new function to slots that all hold the operation's start value, and
    // checks that exactly one slot changed, to the operation's result, and that it is the slot of
    // the id the kernel wrote for this thread, read around the add (retried if the thread moved).
    private static string? SelfTest(nint entry, RestartableOperation operation, long rseqOffset, RseqRegionPlan plan)
    {
        (RseqIdField idField, int partitionCount) = (plan.IdField, plan.PartitionCount);
        (long start, long expected) = operation switch
        {
            RestartableOperation.SaturatingAdd => (SaturatingStart, long.MaxValue),
            RestartableOperation.WrappingAdd => (SaturatingStart, unchecked(SaturatingStart + LongValue)),
            _ => (BitConverter.DoubleToInt64Bits(DoubleStart), BitConverter.DoubleToInt64Bits(DoubleStart + DoubleValue)),
        };

        long[] slots = GC.AllocateArray<long>(partitionCount, pinned: true);
        for (int attempt = 0; attempt < 100; attempt++)
        {
            slots.AsSpan().Fill(start);
            int before = RseqArea.ReadCurrentThreadId(rseqOffset, idField);
            int added;
            fixed (long* first = slots)
            {
                added = operation == RestartableOperation.DoubleAdd
                    ? ((delegate* unmanaged[Cdecl, SuppressGCTransition]<long*, nint, double, int>)entry)(first, sizeof(long), DoubleValue)
                    : ((delegate* unmanaged[Cdecl, SuppressGCTransition]<long*, nint, long, int>)entry)(first, sizeof(long), LongValue);
            }

            int after = RseqArea.ReadCurrentThreadId(rseqOffset, idField);
            if (before != after)
            {
                continue;
            }

            if (added == 0)
            {
                return $"the self-test add was refused ({idField} {before}, {partitionCount} partitions): the thread has no rseq area, or its id is past the partition count";
            }

            int changed = 0, landed = -1;
            for (int i = 0; i < slots.Length; i++)
            {
                if (slots[i] != start)
                {
                    changed++;
                    landed = i;
                }
            }

            int region = plan.RegionOf(before);
            return changed == 1 && landed == region && slots[landed] == expected
                ? null
                : $"the self-test add did not land once, as 0x{expected:x}, in region {region} of {idField} {before} ({changed} regions changed, region {landed} holds 0x{(landed >= 0 ? slots[landed] : 0):x})";
        }

        return $"the thread's {idField} kept changing during the self-test";
    }
}
