namespace ScalableMetrics.Platform;

/// <summary>
/// One restartable add placed in executable memory and checked: the encoder's image for this
/// process's rseq offset, written by <see cref="ExecutableMemory"/> and self-tested before it is
/// handed out.
/// </summary>
/// <remarks>
/// The process uses one, for its life (<see cref="RestartableSequence"/>); benchmarks make more,
/// e.g. one per id field, to compare them. Thread-safe to call; dispose only when no thread can
/// call it any more.
/// </remarks>
internal sealed unsafe class RestartableAddFunction : IDisposable
{
    // The self-test's slots hold this before the add of SelfTestValue, so that one add shows both
    // where the value landed and that the add saturates (long.MaxValue - 1 + 5).
    private const long SelfTestStart = long.MaxValue - 1;
    private const long SelfTestValue = 5;

    private readonly ExecutableMemory _memory;

    private RestartableAddFunction(ExecutableMemory memory, int entryOffset, RseqIdField idField, int partitionCount)
    {
        _memory = memory;
        Add = (delegate* unmanaged[Cdecl, SuppressGCTransition]<long*, nint, long, int>)(memory.Address + entryOffset);
        IdField = idField;
        PartitionCount = partitionCount;
    }

    /// <summary>The function: <c>(slotInRegion0, regionStride, value) → 1 added, 0 not</c>; see <see cref="RestartableAddEncoder"/>.</summary>
    public delegate* unmanaged[Cdecl, SuppressGCTransition]<long*, nint, long, int> Add { get; }

    /// <summary>The id that picks the region.</summary>
    public RseqIdField IdField { get; }

    /// <summary>Ids at or above this number are not added.</summary>
    public int PartitionCount { get; }

    /// <summary>The address of the function's entry point (for disassembly and the W^X check).</summary>
    public nint EntryAddress => (nint)Add;

    /// <summary>Creates and self-tests a function; nothing stays mapped where it fails.</summary>
    /// <param name="rseqOffset">The process's <c>__rseq_offset</c>.</param>
    /// <param name="idField">The id that picks the region.</param>
    /// <param name="partitionCount">The number of regions.</param>
    /// <param name="restartCounter">The native <see langword="long"/> the abort path increments; must outlive the function.</param>
    /// <param name="failure">Why none was made; null on success.</param>
    /// <returns>The function, or null.</returns>
    public static RestartableAddFunction? TryCreate(long rseqOffset, RseqIdField idField, int partitionCount, long* restartCounter, out string? failure)
    {
        RestartableAddImage? image = null;
        ExecutableMemory? memory = ExecutableMemory.TryCreate(
            address =>
            {
                image = RestartableAddEncoder.Encode(rseqOffset, idField, partitionCount, (ulong)restartCounter, address);
                return image.Bytes;
            },
            maxLength: 4096,
            address => SelfTest((delegate* unmanaged[Cdecl, SuppressGCTransition]<long*, nint, long, int>)(address + image!.EntryOffset), rseqOffset, idField, partitionCount),
            out failure);
        return memory is null ? null : new RestartableAddFunction(memory, image!.EntryOffset, idField, partitionCount);
    }

    /// <summary>Unmaps the function; see the remarks.</summary>
    public void Dispose() => _memory.Dispose();

    // Adds once through the new function to slots that hold long.MaxValue - 1, and checks that
    // exactly one slot changed, to long.MaxValue (saturated), and that it is the slot of the id
    // the kernel wrote for this thread, read around the add (retried if the thread moved).
    private static string? SelfTest(delegate* unmanaged[Cdecl, SuppressGCTransition]<long*, nint, long, int> add, long rseqOffset, RseqIdField idField, int partitionCount)
    {
        long[] slots = GC.AllocateArray<long>(partitionCount, pinned: true);
        for (int attempt = 0; attempt < 100; attempt++)
        {
            slots.AsSpan().Fill(SelfTestStart);
            int before = RseqArea.ReadCurrentThreadId(rseqOffset, idField);
            int added;
            fixed (long* first = slots)
            {
                added = add(first, sizeof(long), SelfTestValue);
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
                if (slots[i] != SelfTestStart)
                {
                    changed++;
                    landed = i;
                }
            }

            return changed == 1 && landed == before && slots[landed] == long.MaxValue
                ? null
                : $"the self-test add did not land once, saturated, in region {before} ({changed} regions changed, region {landed} holds {(landed >= 0 ? slots[landed] : 0)})";
        }

        return $"the thread's {idField} kept changing during the self-test";
    }
}
