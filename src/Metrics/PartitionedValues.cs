using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;

namespace ScalableMetrics;

/// <summary>
/// One series' data (a count and a sum of <see cref="long"/>s), kept as one padded copy per
/// partition and summed only when read.
/// </summary>
/// <remarks>
/// Writes never take a lock. Reads (<see cref="Read"/>) take the series' lock, so that reads are
/// serialized: each cell only grows, each read visits every cell after the read before it did,
/// and a retiring thread cell moves into the retired totals under that same lock, so a read's
/// result never goes down, and no value is lost or counted twice.
/// </remarks>
internal sealed class PartitionedValues
{
    // Per-thread strategy: the calling thread's cells, indexed by series slot. A thread-static
    // array indexed by a slot number is a single load and bounds check on the hot path, where a
    // ThreadLocal<T> per series would cost a dictionary-like lookup.
    [ThreadStatic]
    private static ThreadCell?[]? t_threadCells;

    private static int s_lastThreadSlot = -1;

    private readonly PaddedCell[]? _processorCells;
    private readonly int _threadSlot;
    private readonly List<ThreadCell>? _liveThreadCells;
    private readonly Lock _lock = new();
    private long _retiredCount;
    private long _retiredSum;
    private int _sweepAtCount = MinimumSweepCount;

    private const int MinimumSweepCount = 64;

    public PartitionedValues(PartitionStrategy strategy)
    {
        if (strategy == PartitionStrategy.PerProcessor)
        {
            _processorCells = new PaddedCell[ProcessorId.PartitionCount];
        }
        else
        {
            _threadSlot = Interlocked.Increment(ref s_lastThreadSlot);
            _liveThreadCells = [];
        }
    }

    /// <summary>The strategy this series was created with.</summary>
    public PartitionStrategy Strategy => _processorCells is null ? PartitionStrategy.PerThread : PartitionStrategy.PerProcessor;

    /// <summary>The number of thread cells whose thread has not been seen to end (per-thread strategy; 0 otherwise).</summary>
    public int LiveThreadCellCount
    {
        get
        {
            lock (_lock)
            {
                return _liveThreadCells?.Count ?? 0;
            }
        }
    }

    /// <summary>Adds <paramref name="sum"/> to the calling partition's sum.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public void AddSum(long sum)
    {
        PaddedCell[]? cells = _processorCells;
        if (cells is not null)
        {
            // CurrentPartition() < PartitionCount == cells.Length, so the bounds check is redundant.
            ref PaddedCell cell = ref Unsafe.Add(ref MemoryMarshal.GetArrayDataReference(cells), ProcessorId.CurrentPartition());
            Interlocked.Add(ref cell.Sum, sum);
        }
        else
        {
            ref PaddedCell cell = ref GetThreadCell().Data;
            Volatile.Write(ref cell.Sum, cell.Sum + sum);
        }
    }

    /// <summary>Adds one operation of <paramref name="sum"/> to the calling partition's count and sum.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public void AddCountAndSum(long count, long sum)
    {
        PaddedCell[]? cells = _processorCells;
        if (cells is not null)
        {
            ref PaddedCell cell = ref Unsafe.Add(ref MemoryMarshal.GetArrayDataReference(cells), ProcessorId.CurrentPartition());
            Interlocked.Add(ref cell.Count, count);
            Interlocked.Add(ref cell.Sum, sum);
        }
        else
        {
            ref PaddedCell cell = ref GetThreadCell().Data;
            Volatile.Write(ref cell.Count, cell.Count + count);
            Volatile.Write(ref cell.Sum, cell.Sum + sum);
        }
    }

    /// <summary>
    /// Sums every partition. Thread-safe; serialized with other reads of this series.
    /// </summary>
    /// <remarks>The count and the sum are each exact as of some instant during the read, not necessarily the same instant.</remarks>
    public (long Count, long Sum) Read()
    {
        lock (_lock)
        {
            long count = 0;
            long sum = 0;
            if (_processorCells is { } cells)
            {
                for (int i = 0; i < cells.Length; i++)
                {
                    count += Volatile.Read(ref cells[i].Count);
                    sum += Volatile.Read(ref cells[i].Sum);
                }

                return (count, sum);
            }

            List<ThreadCell> live = _liveThreadCells!;
            RetireEndedThreadCells(live);
            count = _retiredCount;
            sum = _retiredSum;
            foreach (ThreadCell cell in live)
            {
                count += Volatile.Read(ref cell.Data.Count);
                sum += Volatile.Read(ref cell.Data.Sum);
            }

            return (count, sum);
        }
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private ThreadCell GetThreadCell()
    {
        ThreadCell?[]? cells = t_threadCells;
        int slot = _threadSlot;
        if (cells is not null && (uint)slot < (uint)cells.Length && cells[slot] is { } cell)
        {
            return cell;
        }

        return RegisterThreadCell();
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private ThreadCell RegisterThreadCell()
    {
        var cell = new ThreadCell(Thread.CurrentThread);
        ThreadCell?[]? cells = t_threadCells;
        if (cells is null || _threadSlot >= cells.Length)
        {
            Array.Resize(ref cells, Math.Max(_threadSlot + 1, (cells?.Length ?? 4) * 2));
            t_threadCells = cells;
        }

        lock (_lock)
        {
            List<ThreadCell> live = _liveThreadCells!;
            live.Add(cell);

            // Sweep when the list has doubled since the last sweep, so that thread churn without
            // collections cannot grow the list without bound, at amortized O(1) per registration.
            if (live.Count >= _sweepAtCount)
            {
                RetireEndedThreadCells(live);
                _sweepAtCount = Math.Max(MinimumSweepCount, live.Count * 2);
            }
        }

        cells[_threadSlot] = cell;
        return cell;
    }

    // Caller holds _lock. A cell whose owner has ended gets no more writes, so its final values
    // move into the retired totals and the cell leaves the list, in one step under the lock that
    // every read takes: the value is counted exactly once, before and after.
    private void RetireEndedThreadCells(List<ThreadCell> live)
    {
        for (int i = live.Count - 1; i >= 0; i--)
        {
            ThreadCell cell = live[i];
            if (!cell.Owner.IsAlive)
            {
                _retiredCount += Volatile.Read(ref cell.Data.Count);
                _retiredSum += Volatile.Read(ref cell.Data.Sum);
                live[i] = live[^1];
                live.RemoveAt(live.Count - 1);
            }
        }
    }
}
