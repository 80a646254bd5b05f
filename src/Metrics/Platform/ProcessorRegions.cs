using System.Numerics;
using ScalableMetrics.Platform.Interop;

namespace ScalableMetrics.Platform;

/// <summary>
/// A dense, append-only map from processor id to partition: the processors the process may run
/// on (its affinity mask, i.e. its cpuset) take partitions 0, 1, 2, … in id order, and a processor
/// first seen later (a mask that widened, a processor brought online) takes the next partition,
/// folded by modulo once every partition has one. A processor keeps its partition for good.
/// </summary>
/// <remarks>
/// <para>Why not <c>id % count</c>: a process limited to processors whose ids share residues (a
/// cpuset of whole cores such as {10, 11, 106, 107} with 4 partitions) folds several onto one
/// partition and leaves others idle. In id order, the cpuset's processors are partitions 0 to 3.
/// Models: Go 1.25's cgroup-aware <c>GOMAXPROCS</c> sizes by where the process may run; the
/// kernel's <c>mm_cid</c> numbers a process's processors densely.</para>
/// <para>Thread-safe: lookups read a published array without a lock; a processor not yet mapped is
/// added under a lock, and the array it lands in is published after it is written. Only the
/// Interlocked write path folds by it (<see cref="ProcessorId"/>), where two processors sharing a
/// partition costs contention, never correctness.</para>
/// </remarks>
internal sealed class ProcessorRegions
{
    private readonly Lock _lock = new();
    private readonly int _partitionCount;

    // The partition of each processor id, or -1 where none is assigned yet.
    private int[] _partitionOf;
    private int _assigned;

    /// <summary>Maps <paramref name="allowed"/> (processor ids, any order) to partitions in id order, over <paramref name="partitionCount"/> partitions.</summary>
    /// <param name="allowed">The processors the process may run on at start.</param>
    /// <param name="partitionCount">The partitions, 1 or more.</param>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="partitionCount"/> is below 1, or an id is negative.</exception>
    public ProcessorRegions(IEnumerable<int> allowed, int partitionCount)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(partitionCount, 1);
        _partitionCount = partitionCount;
        int[] ids = [.. allowed.Distinct().Order()];
        if (ids.Length > 0)
        {
            ArgumentOutOfRangeException.ThrowIfNegative(ids[0], nameof(allowed));
        }

        _partitionOf = New(ids.Length == 0 ? 0 : ids[^1] + 1);
        foreach (int id in ids)
        {
            _partitionOf[id] = _assigned++ % partitionCount;
        }
    }

    /// <summary>The partitions processors are folded into.</summary>
    public int PartitionCount => _partitionCount;

    /// <summary>The map of the processors this process may use now, over <paramref name="partitionCount"/> partitions.</summary>
    public static ProcessorRegions ForProcess(int partitionCount) => new(AllowedProcessors(), partitionCount);

    /// <summary>The partition of processor <paramref name="id"/>, assigned on its first lookup if it has none.</summary>
    /// <param name="id">A processor id, 0 or more.</param>
    /// <returns>A partition in [0, <see cref="PartitionCount"/>).</returns>
    public int PartitionOf(int id)
    {
        int[] map = Volatile.Read(ref _partitionOf);
        return (uint)id < (uint)map.Length && map[id] >= 0 ? map[id] : Assign(id);
    }

    // The union of the affinity masks of the process's main thread (Linux); elsewhere none, so
    // that processors take partitions in the order they are first seen.
    private static unsafe List<int> AllowedProcessors()
    {
        var ids = new List<int>();
        if (!OperatingSystem.IsLinux() || !Libc.IsAvailable)
        {
            return ids;
        }

        const int MaskWords = 8192 / 64;
        ulong* mask = stackalloc ulong[MaskWords];
        if (Libc.SchedGetAffinity(0, MaskWords * sizeof(ulong), mask) != 0)
        {
            return ids;
        }

        for (int word = 0; word < MaskWords; word++)
        {
            for (ulong bits = mask[word]; bits != 0; bits &= bits - 1)
            {
                ids.Add((word * 64) + BitOperations.TrailingZeroCount(bits));
            }
        }

        return ids;
    }

    private static int[] New(int length)
    {
        var map = new int[length];
        map.AsSpan().Fill(-1);
        return map;
    }

    private int Assign(int id)
    {
        if (id < 0)
        {
            return 0;
        }

        lock (_lock)
        {
            int[] map = _partitionOf;
            if (id < map.Length && map[id] >= 0)
            {
                return map[id];
            }

            if (id >= map.Length)
            {
                int[] grown = New(Math.Max(id + 1, map.Length * 2));
                map.CopyTo(grown, 0);
                map = grown;
            }

            int partition = _assigned++ % _partitionCount;
            map[id] = partition;
            Volatile.Write(ref _partitionOf, map);
            return partition;
        }
    }
}
