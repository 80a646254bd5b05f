using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;

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
/// plain store to the thread's own cell).</para>
/// <para>Writes never take a lock. Reads take the series' lock, so that reads are serialized:
/// each cell only grows, each read visits every cell after the read before it did, and a thread
/// cell whose thread has ended moves into the retired totals under that same lock; so a read's
/// result never goes down, and no value is lost or counted twice.</para>
/// <para>The storage sits in this base class rather than in an object of its own, so that an add
/// through a bound series reaches its cells with one load less.</para>
/// </remarks>
public abstract unsafe class PartitionedSeries
{
    private readonly PaddedCell[]? _processorCells;

    // Cell 0 of _processorCells where the storage is PerProcessorRestartable, else null. The
    // array is allocated on the pinned object heap, so this address holds for the series' life.
    private readonly PaddedCell* _restartableCells;
    private ThreadCell?[] _threadCells = [];
    private readonly Lock _lock = new();
    private long _retiredCount;
    private long _retiredSum;

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

    /// <summary>The number of thread cells not yet retired (per-thread strategy; 0 otherwise).</summary>
    internal int LiveThreadCellCount
    {
        get
        {
            lock (_lock)
            {
                return _threadCells.Count(c => c is not null);
            }
        }
    }

    /// <summary>Adds <paramref name="sum"/> to the calling partition's sum.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private protected void AddSum(long sum)
    {
        // One test of _processorCells sends per-thread series on their way first, so that the
        // fallback pays no more than before restartable sequences; per processor, the second
        // field tells the two storages apart.
        PaddedCell[]? cells = _processorCells;
        if (cells is null)
        {
            ref PaddedCell threadCell = ref GetThreadCell().Data;
            Volatile.Write(ref threadCell.Sum, threadCell.Sum + sum);
            return;
        }

        PaddedCell* restartableCells = _restartableCells;
        if (restartableCells != null)
        {
            AddRestartable(&restartableCells->Sum, sum);
            return;
        }

        // CurrentPartition() < PartitionCount == cells.Length, so a bounds check would be redundant.
        ref PaddedCell cell = ref Unsafe.Add(ref MemoryMarshal.GetArrayDataReference(cells), ProcessorId.CurrentPartition());
        Interlocked.Add(ref cell.Sum, sum);
    }

    /// <summary>Adds <paramref name="count"/> operations of <paramref name="sum"/> to the calling partition's count and sum.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private protected void AddCountAndSum(long count, long sum)
    {
        PaddedCell[]? cells = _processorCells;
        if (cells is null)
        {
            ref PaddedCell threadCell = ref GetThreadCell().Data;
            Volatile.Write(ref threadCell.Count, threadCell.Count + count);
            Volatile.Write(ref threadCell.Sum, threadCell.Sum + sum);
            return;
        }

        PaddedCell* restartableCells = _restartableCells;
        if (restartableCells != null)
        {
            // Two sequences, each of which commits once: the count and the sum may land in two
            // processors' cells if the thread moves between them, and each is still exact.
            AddRestartable(&restartableCells->Count, count);
            AddRestartable(&restartableCells->Sum, sum);
            return;
        }

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
                for (int i = 0; i < processorCells.Length; i++)
                {
                    count += Volatile.Read(ref processorCells[i].Count);
                    sum += Volatile.Read(ref processorCells[i].Sum);
                }

                return (count, sum);
            }

            ThreadCell?[] cells = _threadCells;
            for (int i = 0; i < cells.Length; i++)
            {
                if (cells[i] is { } cell && !cell.Owner.IsAlive)
                {
                    Retire(cells, i);
                }
            }

            count = _retiredCount;
            sum = _retiredSum;
            foreach (ThreadCell? cell in cells)
            {
                if (cell is not null)
                {
                    count += Volatile.Read(ref cell.Data.Count);
                    sum += Volatile.Read(ref cell.Data.Sum);
                }
            }

            return (count, sum);
        }
    }

    // Adds to the field at firstCellField's offset in the current processor's cell, or in the
    // overflow cell (after the last processor's) where the processor has no cell of its own.
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static void AddRestartable(long* firstCellField, long value)
    {
        if (!RestartableSequence.TryAdd(firstCellField, value))
        {
            AddToOverflowCell(firstCellField, value);
        }
    }

    // The overflow cell is written by any processor, so always atomically.
    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void AddToOverflowCell(long* firstCellField, long value) =>
        Interlocked.Add(ref *(long*)((byte*)firstCellField + ((nint)RestartableSequence.PartitionCount * PaddedCell.Size)), value);

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private ThreadCell GetThreadCell()
    {
        long lease = ThreadLease.Current;
        int index = ThreadLease.IndexOf(lease);
        ThreadCell?[] cells = _threadCells;
        if ((uint)index < (uint)cells.Length && cells[index] is { } cell && cell.Lease == lease)
        {
            return cell;
        }

        return RegisterThreadCell();
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private ThreadCell RegisterThreadCell()
    {
        long lease = ThreadLease.AcquireForCurrentThread();
        int index = ThreadLease.IndexOf(lease);
        lock (_lock)
        {
            ThreadCell?[] cells = _threadCells;
            if (index >= cells.Length)
            {
                // Readers of _threadCells without the lock (writers on the hot path) see either
                // array; a cell is only ever written by its owner, whichever array it found it in.
                Array.Resize(ref cells, Math.Max(index + 1, ThreadLease.IndexCount));
                Volatile.Write(ref _threadCells, cells);
            }

            if (cells[index] is { } existing)
            {
                if (existing.Lease == lease)
                {
                    return existing;
                }

                // The index was this thread's predecessor's, given on only after it ended: its
                // cell holds final values.
                Retire(cells, index);
            }

            var cell = new ThreadCell(Thread.CurrentThread, lease);
            Volatile.Write(ref cells[index], cell);
            return cell;
        }
    }

    // Caller holds _lock, and the cell's owner has ended, so the cell gets no more writes: its
    // final values move into the retired totals and it leaves the array in one step under the
    // lock that every read takes. Counted exactly once, before and after.
    private void Retire(ThreadCell?[] cells, int index)
    {
        ThreadCell cell = cells[index]!;
        _retiredCount += Volatile.Read(ref cell.Data.Count);
        _retiredSum += Volatile.Read(ref cell.Data.Sum);
        cells[index] = null;
    }
}
