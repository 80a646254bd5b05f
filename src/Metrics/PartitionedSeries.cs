using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using ScalableMetrics.Platform;

namespace ScalableMetrics;

/// <summary>
/// One series of a partitioned instrument: its tags and its data (a count and a sum of
/// <see cref="long"/>s), kept as one padded copy per partition and summed only when read.
/// </summary>
/// <remarks>
/// <para>Three storages (<see cref="SeriesStorage"/>): per processor with a restartable sequence
/// (a plain add to the cell of the processor the add runs on; processor ids past
/// <see cref="RestartableSequence.PartitionCount"/> add to one overflow cell with
/// <see cref="Interlocked"/>, the only cell more than one processor writes), per processor with
/// <see cref="Interlocked"/> (the cell of the thread's cached processor id), and per thread (a
/// plain store to the cell at the thread's <see cref="ThreadLease"/> index, which no other
/// living thread holds).</para>
/// <para>Writes never take a lock. Reads take the series' lock, so that reads are serialized:
/// each cell only grows and each read visits every cell after the read before it did, so a
/// read's result never goes down, and no value is lost or counted twice.</para>
/// <para>Per thread, a cell outlives its thread: the next thread given the same index goes on
/// adding to it, one writer after the other, so an ended thread's adds need no moving. When a
/// thread's index is past the end of the cells, the series moves to a larger array; the old
/// array is kept and still summed, because a writer that read the old array before the move may
/// still add to it (once). Nothing is copied, so nothing can be lost in a copy. The arrays at
/// most double each time, so all of them together hold less than twice the cells of the
/// last.</para>
/// <para>The storage sits in this base class rather than in an object of its own, so that an add
/// through a bound series reaches its cells with one load less.</para>
/// </remarks>
public abstract unsafe class PartitionedSeries
{
    private readonly PaddedCell[]? _processorCells;

    // Cell 0 of _processorCells where the storage is PerProcessorRestartable, else null. The
    // array is allocated on the pinned object heap, so this address holds for the series' life.
    private readonly PaddedCell* _restartableCells;

    // Per thread: the cells indexed by ThreadLease index, else null; replaced (under _lock) by a
    // larger array when a thread's index is past its end.
    private PaddedCell[]? _threadCells;

    // Per thread: every array _threadCells has held before, still summed by reads (see remarks).
    private PaddedCell[][] _outgrownThreadCells = [];
    private readonly Lock _lock = new();

    private protected PartitionedSeries(TagSet tags, SeriesStorage storage)
    {
        Tags = tags;
        if (storage == SeriesStorage.PerProcessorRestartable)
        {
            // One cell per processor id, then the overflow cell.
            _processorCells = GC.AllocateArray<PaddedCell>(RestartableSequence.PartitionCount + 1, pinned: true);
            _restartableCells = (PaddedCell*)Unsafe.AsPointer(ref MemoryMarshal.GetArrayDataReference(_processorCells));
        }
        else if (storage == SeriesStorage.PerProcessorInterlocked)
        {
            _processorCells = new PaddedCell[ProcessorId.PartitionCount];
        }
        else
        {
            // Room for every index handed out so far; a thread given a later one grows the array.
            _threadCells = new PaddedCell[ThreadLease.IndexCount];
        }
    }

    /// <summary>The tags that name this series.</summary>
    public TagSet Tags { get; }

    /// <summary>The strategy this series was created with.</summary>
    internal PartitionStrategy Strategy => _processorCells is null ? PartitionStrategy.PerThread : PartitionStrategy.PerProcessor;

    /// <summary>How this series keeps and updates its cells, read off which cells it has.</summary>
    internal SeriesStorage Storage =>
        _restartableCells != null ? SeriesStorage.PerProcessorRestartable
        : _processorCells is not null ? SeriesStorage.PerProcessorInterlocked
        : SeriesStorage.PerThread;

    /// <summary>The number of per-processor cells, the overflow cell included; 0 for a per-thread series.</summary>
    internal int ProcessorCellCount => _processorCells?.Length ?? 0;

    /// <summary>The number of thread cells, in the current array and the outgrown ones (per-thread storage; 0 otherwise).</summary>
    internal int ThreadCellCount
    {
        get
        {
            lock (_lock)
            {
                return (_threadCells?.Length ?? 0) + _outgrownThreadCells.Sum(cells => cells.Length);
            }
        }
    }

    /// <summary>Adds <paramref name="sum"/> to the calling partition's sum.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private protected void AddSum(long sum)
    {
        // The default storage first, with one field that tells it apart; then per thread, with
        // the one field it needs anyway.
        PaddedCell* restartableCells = _restartableCells;
        if (restartableCells != null)
        {
            AddRestartable(&restartableCells->Sum, sum);
            return;
        }

        PaddedCell[]? threadCells = _threadCells;
        if (threadCells is not null)
        {
            ref PaddedCell threadCell = ref GetThreadCell(threadCells);
            Volatile.Write(ref threadCell.Sum, threadCell.Sum + sum);
            return;
        }

        PaddedCell[] cells = _processorCells!;

        // CurrentPartition() < PartitionCount == cells.Length, so a bounds check would be redundant.
        ref PaddedCell cell = ref Unsafe.Add(ref MemoryMarshal.GetArrayDataReference(cells), ProcessorId.CurrentPartition());
        Interlocked.Add(ref cell.Sum, sum);
    }

    /// <summary>Adds <paramref name="count"/> operations of <paramref name="sum"/> to the calling partition's count and sum.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private protected void AddCountAndSum(long count, long sum)
    {
        // In the same order as AddSum.
        PaddedCell* restartableCells = _restartableCells;
        if (restartableCells != null)
        {
            // Two sequences, each of which commits once: the count and the sum may land in two
            // processors' cells if the thread moves between them, and each is still exact.
            AddRestartable(&restartableCells->Count, count);
            AddRestartable(&restartableCells->Sum, sum);
            return;
        }

        PaddedCell[]? threadCells = _threadCells;
        if (threadCells is not null)
        {
            ref PaddedCell threadCell = ref GetThreadCell(threadCells);
            Volatile.Write(ref threadCell.Count, threadCell.Count + count);
            Volatile.Write(ref threadCell.Sum, threadCell.Sum + sum);
            return;
        }

        PaddedCell[] cells = _processorCells!;
        ref PaddedCell cell = ref Unsafe.Add(ref MemoryMarshal.GetArrayDataReference(cells), ProcessorId.CurrentPartition());
        Interlocked.Add(ref cell.Count, count);
        Interlocked.Add(ref cell.Sum, sum);
    }

    /// <summary>Sums every partition. Thread-safe; serialized with other reads of this series.</summary>
    /// <remarks>The count and the sum are each exact as of some instant during the read, not necessarily the same instant.</remarks>
    private protected (long Count, long Sum) ReadPartitions()
    {
        lock (_lock)
        {
            long count = 0;
            long sum = 0;
            if (_processorCells is { } processorCells)
            {
                AddUp(processorCells, ref count, ref sum);
                return (count, sum);
            }

            foreach (PaddedCell[] outgrown in _outgrownThreadCells)
            {
                AddUp(outgrown, ref count, ref sum);
            }

            AddUp(_threadCells!, ref count, ref sum);
            return (count, sum);
        }
    }

    // Adds to the field at firstCellField's offset in the current processor's cell, or in the
    // overflow cell (after the last processor's) where the processor has no cell of its own.
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static void AddRestartable(long* firstCellField, long value)
    {
        if (!RestartableSequence.TryAdd(firstCellField, PaddedCell.Size, value))
        {
            AddToOverflowCell(firstCellField, value);
        }
    }

    // The overflow cell is written by any processor, so always atomically.
    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void AddToOverflowCell(long* firstCellField, long value) =>
        Interlocked.Add(ref *(long*)((byte*)firstCellField + ((nint)RestartableSequence.PartitionCount * PaddedCell.Size)), value);

    private static void AddUp(PaddedCell[] cells, ref long count, ref long sum)
    {
        for (int i = 0; i < cells.Length; i++)
        {
            count += Volatile.Read(ref cells[i].Count);
            sum += Volatile.Read(ref cells[i].Sum);
        }
    }

    // Per thread: the calling thread's cell, which only this thread writes (with plain stores)
    // while it lives.
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private ref PaddedCell GetThreadCell(PaddedCell[] cells)
    {
        int index = ThreadLease.CurrentIndex;
        if ((uint)index < (uint)cells.Length)
        {
            return ref cells[index];
        }

        return ref GetNewThreadCell();
    }

    // Per thread, where the thread has no index yet, or its index is past the end of the cells:
    // takes an index, and moves to a larger array if need be.
    [MethodImpl(MethodImplOptions.NoInlining)]
    private ref PaddedCell GetNewThreadCell()
    {
        int index = ThreadLease.AcquireIndexForCurrentThread();
        PaddedCell[] cells = Volatile.Read(ref _threadCells)!;
        if (index >= cells.Length)
        {
            lock (_lock)
            {
                cells = _threadCells!;
                if (index >= cells.Length)
                {
                    // Not copied: writers that read the old array may still add to it (see remarks).
                    var larger = new PaddedCell[Math.Max(Math.Max(index + 1, ThreadLease.IndexCount), 2 * cells.Length)];
                    _outgrownThreadCells = [.. _outgrownThreadCells, cells];
                    Volatile.Write(ref _threadCells, larger);
                    cells = larger;
                }
            }
        }

        return ref cells[index];
    }
}
