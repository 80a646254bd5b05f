namespace ScalableMetrics.Platform;

/// <summary>
/// A dense, append-only map from processor id to partition, for the Interlocked write path: the
/// processors the process may run on (<see cref="ProcessorSet"/>: its affinity mask, i.e. its
/// cpuset) take partitions 0, 1, 2, … in region order (socket, core, id), and a processor first
/// seen later (a mask that widened, a processor brought online) joins the partition of a
/// processor of its own core, else one of its own socket's partitions in turn, else the next
/// partition in turn; where a partition is still free it takes that. A processor keeps its
/// partition for good.
/// </summary>
/// <remarks>
/// <para>Why not <c>id % count</c>: a process limited to processors whose ids share residues (a
/// cpuset of whole cores such as {10, 11, 106, 107} with 4 partitions) folds several onto one
/// partition and leaves others idle. In id order, the cpuset's processors are partitions 0 to 3.
/// Models: Go 1.25's cgroup-aware <c>GOMAXPROCS</c> sizes by where the process may run; the
/// kernel's <c>mm_cid</c> numbers a process's processors densely. Joining a core's or a socket's
/// partition keeps the contention a late processor brings on caches that already share a level.</para>
/// <para>Thread-safe: lookups read a published array without a lock; a processor not yet mapped is
/// added under a lock, and the array it lands in is published after it is written. Only the
/// Interlocked write path folds by it (<see cref="ProcessorId"/>), where two processors sharing a
/// partition costs contention, never correctness; the restartable path gives a processor outside
/// its regions none (<see cref="Rseq.RseqPartitionBounds"/>).</para>
/// </remarks>
internal sealed class ProcessorRegions
{
    private readonly Lock _lock = new();
    private readonly int _partitionCount;
    private readonly Func<int, ProcessorTopology?> _topologyOf;

    // The partition of each processor id, or -1 where none is assigned yet.
    private int[] _partitionOf;
    private int _assigned;

    // The partition of each core and of each socket's processors mapped so far (for late ones).
    private readonly Dictionary<ProcessorTopology, int> _partitionOfCore = [];
    private readonly Dictionary<int, SocketPartitions> _partitionsOfSocket = [];

    /// <summary>Maps <paramref name="ordered"/> (processor ids, in the order they take partitions) to partitions, over <paramref name="partitionCount"/> partitions.</summary>
    /// <param name="ordered">The processors the process may run on at start, in region order; repeats are ignored.</param>
    /// <param name="partitionCount">The partitions, 1 or more.</param>
    /// <param name="topologyOf">The socket and core of a processor, or null where unknown; null for none at all.</param>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="partitionCount"/> is below 1, or an id is negative.</exception>
    public ProcessorRegions(IEnumerable<int> ordered, int partitionCount, Func<int, ProcessorTopology?>? topologyOf = null)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(partitionCount, 1);
        _partitionCount = partitionCount;
        _topologyOf = topologyOf ?? (static _ => null);
        int[] ids = [.. ordered.Distinct()];
        if (ids.Length > 0)
        {
            ArgumentOutOfRangeException.ThrowIfNegative(ids.Min(), nameof(ordered));
        }

        _partitionOf = New(ids.Length == 0 ? 0 : ids.Max() + 1);
        foreach (int id in ids)
        {
            _partitionOf[id] = Place(id);
        }
    }

    /// <summary>The partitions processors are folded into.</summary>
    public int PartitionCount => _partitionCount;

    /// <summary>The map of <paramref name="processors"/>, over <paramref name="partitionCount"/> partitions.</summary>
    /// <param name="processors">The processors the process may use (the one reading both write paths share).</param>
    /// <param name="partitionCount">The partitions, 1 or more.</param>
    public static ProcessorRegions For(ProcessorSet processors, int partitionCount) =>
        new(processors.Ordered, partitionCount, processors.TopologyOf);

    /// <summary>The partition of processor <paramref name="id"/>, assigned on its first lookup if it has none.</summary>
    /// <param name="id">A processor id, 0 or more.</param>
    /// <returns>A partition in [0, <see cref="PartitionCount"/>).</returns>
    public int PartitionOf(int id)
    {
        int[] map = Volatile.Read(ref _partitionOf);
        return (uint)id < (uint)map.Length && map[id] >= 0 ? map[id] : Assign(id);
    }

    private static int[] New(int length)
    {
        var map = new int[length];
        map.AsSpan().Fill(-1);
        return map;
    }

    // The partition of a processor seen for the first time (under the lock, or in the constructor).
    private int Place(int id)
    {
        ProcessorTopology? topology = _topologyOf(id);
        int partition;
        bool ownPartition = _assigned < _partitionCount;
        if (ownPartition)
        {
            partition = _assigned++;
        }
        else if (topology is { } core && _partitionOfCore.TryGetValue(core, out int ofCore))
        {
            partition = ofCore;
        }
        else if (topology is { } socket && _partitionsOfSocket.TryGetValue(socket.Package, out SocketPartitions? ofSocket))
        {
            partition = ofSocket.Partitions[ofSocket.Next++ % ofSocket.Partitions.Count];
        }
        else
        {
            partition = _assigned++ % _partitionCount;
        }

        // A core's later threads join it; a socket's later processors join only the partitions its
        // processors took of their own, so that a socket with none at start (offline then) spreads
        // over all partitions in turn rather than onto the first one of its processors took.
        if (topology is { } known)
        {
            _partitionOfCore.TryAdd(known, partition);
        }

        if (topology is { } placed && ownPartition)
        {
            if (!_partitionsOfSocket.TryGetValue(placed.Package, out SocketPartitions? partitions))
            {
                _partitionsOfSocket[placed.Package] = partitions = new SocketPartitions();
            }

            if (!partitions.Partitions.Contains(partition))
            {
                partitions.Partitions.Add(partition);
            }
        }

        return partition;
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

            int partition = Place(id);
            map[id] = partition;
            Volatile.Write(ref _partitionOf, map);
            return partition;
        }
    }

    // A socket's partitions, and the turn of the next late processor that joins one of them.
    private sealed class SocketPartitions
    {
        public List<int> Partitions { get; } = [];

        public int Next { get; set; }
    }
}
