using System.Globalization;
using System.Numerics;
using ScalableMetrics.Platform.Interop;

namespace ScalableMetrics.Platform;

/// <summary>
/// The processors the process may run on, read once: the one reading both per-processor write
/// paths size and map their partitions by (<see cref="ProcessorId"/> for Interlocked adds,
/// <see cref="Rseq.RestartableSequence"/> for restartable ones), so that the two never disagree
/// about a moment.
/// </summary>
/// <remarks>
/// <para>On Linux, the union of the affinity masks of the process's threads
/// (<c>sched_getaffinity</c> on each of <c>/proc/self/task</c>): the cpuset, or a <c>taskset</c>,
/// as the kernel applies it, offline processors left out. Beside it, for the start-up log only,
/// the possible and online lists of <c>/sys/devices/system/cpu</c>; and for ordering, each
/// allowed processor's socket and core (<c>topology/physical_package_id</c>, <c>core_id</c>).
/// Not the host's possible processors: a container confined to 4 processors of a 192-processor
/// host needs 4 partitions, not 193. Models: Go 1.25's cgroup-aware <c>GOMAXPROCS</c>, and the
/// kernel's <c>mm_cid</c>, which numbers a process's processors densely.</para>
/// <para>A CFS quota (<c>cpu.max</c>) does not narrow the set: a process with a quota of 4
/// processors may still run on every processor of its mask at once, each of which needs a region
/// of its own for a plain add.</para>
/// <para>Elsewhere (Windows, or no mask readable) the set is unknown
/// (<see cref="IsKnown"/> is <see langword="false"/>) and its <see cref="Count"/> is
/// <see cref="Environment.ProcessorCount"/>. Immutable and thread-safe.</para>
/// </remarks>
internal sealed class ProcessorSet
{
    // 8192 processors, the kernel's largest NR_CPUS.
    internal const int MaxProcessors = 8192;

    private const string SysCpu = "/sys/devices/system/cpu";

    private static readonly Lazy<ProcessorSet> s_current = new(ReadFromSystem);

    private readonly Func<int, ProcessorTopology?> _topologyOf;
    private readonly Dictionary<int, ProcessorTopology> _topology = [];

    /// <summary>Makes a set from what was read (or, in tests, from what a test states).</summary>
    /// <param name="allowed">The processor ids the process may run on, any order; empty where unknown.</param>
    /// <param name="possible">The kernel's possible list (<c>0-63</c>), or null where unknown.</param>
    /// <param name="online">The kernel's online list, or null where unknown.</param>
    /// <param name="topologyOf">A processor's socket and core, or null where the system does not say; asked for the allowed processors now and for others when first seen.</param>
    /// <exception cref="ArgumentNullException"><paramref name="allowed"/> or <paramref name="topologyOf"/> is null.</exception>
    /// <exception cref="ArgumentOutOfRangeException">An id is negative or not below <see cref="MaxProcessors"/>.</exception>
    public ProcessorSet(IEnumerable<int> allowed, string? possible, string? online, Func<int, ProcessorTopology?> topologyOf)
    {
        ArgumentNullException.ThrowIfNull(allowed);
        ArgumentNullException.ThrowIfNull(topologyOf);
        int[] ids = [.. allowed.Distinct().Order()];
        if (ids.Length > 0)
        {
            ArgumentOutOfRangeException.ThrowIfNegative(ids[0], nameof(allowed));
            ArgumentOutOfRangeException.ThrowIfGreaterThanOrEqual(ids[^1], MaxProcessors, nameof(allowed));
        }

        _topologyOf = topologyOf;
        foreach (int id in ids)
        {
            if (topologyOf(id) is { } topology)
            {
                _topology[id] = topology;
            }
        }

        Allowed = ids;

        // Socket by socket, so that a socket's regions lie side by side (its processors touch their
        // pages first, which places them on its node); within one, by core and id, so that a core's
        // threads are neighbours.
        Ordered = [.. ids.OrderBy(id => _topology.TryGetValue(id, out ProcessorTopology t) ? t.Package : 0)
            .ThenBy(id => _topology.TryGetValue(id, out ProcessorTopology t) ? t.Core : 0)
            .ThenBy(id => id)];
        Possible = possible;
        Online = online;
    }

    /// <summary>The set read from this system on first use, for the process's life.</summary>
    public static ProcessorSet Current => s_current.Value;

    /// <summary>The ids of the processors the process may run on, ascending; empty where unknown.</summary>
    public IReadOnlyList<int> Allowed { get; }

    /// <summary>The same ids in region order: by socket, then core, then id.</summary>
    public IReadOnlyList<int> Ordered { get; }

    /// <summary>Whether the allowed processors were read (Linux).</summary>
    public bool IsKnown => Allowed.Count > 0;

    /// <summary>The partitions a per-processor write path needs: the allowed processors, or <see cref="Environment.ProcessorCount"/> where unknown.</summary>
    public int Count => IsKnown ? Allowed.Count : Math.Max(1, Environment.ProcessorCount);

    /// <summary>Whether the allowed processors are exactly 0 to <see cref="Count"/> - 1, so an id is its own region.</summary>
    public bool IsDenseFromZero => IsKnown && Allowed[^1] == Allowed.Count - 1;

    /// <summary>The kernel's possible list, as read; null where unknown.</summary>
    public string? Possible { get; }

    /// <summary>The kernel's online list, as read; null where unknown.</summary>
    public string? Online { get; }

    /// <summary>The socket and core of <paramref name="id"/>, read now where it is not an allowed processor; null where the system does not say.</summary>
    /// <param name="id">A processor id.</param>
    public ProcessorTopology? TopologyOf(int id) =>
        _topology.TryGetValue(id, out ProcessorTopology topology) ? topology : _topologyOf(id);

    /// <summary>The set in words, for the start-up log: <c>affinity 8-11 (4 of 16 online, possible 0-63)</c>.</summary>
    public string Describe()
    {
        if (!IsKnown)
        {
            return $"{Count} processors (Environment.ProcessorCount; no affinity mask could be read)";
        }

        int sockets = Allowed.Select(id => _topology.TryGetValue(id, out ProcessorTopology t) ? t.Package : -1).Distinct().Count();
        string online = Online is null ? "" : $" of {CountList(Online)} online";
        string possible = Possible is null ? "" : $", possible {Possible}";
        string onSockets = _topology.Count == 0 ? "" : $", on {sockets} socket{(sockets == 1 ? "" : "s")}";
        return $"affinity {FormatList(Allowed)} ({Allowed.Count}{online}{possible}{onSockets})";
    }

    /// <summary>Writes ids as a kernel cpu list: <c>0-3,8,10-11</c>.</summary>
    /// <param name="ids">Ascending ids.</param>
    public static string FormatList(IReadOnlyList<int> ids)
    {
        var text = new System.Text.StringBuilder();
        for (int i = 0; i < ids.Count; i++)
        {
            int first = ids[i];
            while (i + 1 < ids.Count && ids[i + 1] == ids[i] + 1)
            {
                i++;
            }

            text.Append(text.Length == 0 ? "" : ",").Append(first.ToString(CultureInfo.InvariantCulture));
            if (ids[i] != first)
            {
                text.Append('-').Append(ids[i].ToString(CultureInfo.InvariantCulture));
            }
        }

        return text.ToString();
    }

    /// <summary>Parses a kernel cpu list (<c>0-3,8,10-11</c>) into its ids.</summary>
    /// <param name="list">The list's text.</param>
    /// <param name="ids">The ids, ascending; empty where the text is not a list.</param>
    /// <returns>Whether the text was a non-empty list of ids below <see cref="MaxProcessors"/>.</returns>
    public static bool TryParseList(string list, out List<int> ids)
    {
        ids = [];
        foreach (string range in list.Trim().Split(',', StringSplitOptions.RemoveEmptyEntries))
        {
            int dash = range.IndexOf('-', StringComparison.Ordinal);
            if (!int.TryParse(dash < 0 ? range : range[..dash], NumberStyles.None, CultureInfo.InvariantCulture, out int first)
                || !int.TryParse(range[(dash + 1)..], NumberStyles.None, CultureInfo.InvariantCulture, out int last)
                || last < first || last >= MaxProcessors)
            {
                ids = [];
                return false;
            }

            for (int id = first; id <= last; id++)
            {
                ids.Add(id);
            }
        }

        ids = [.. ids.Distinct().Order()];
        return ids.Count > 0;
    }

    private static int CountList(string list) => TryParseList(list, out List<int> ids) ? ids.Count : 0;

    private static ProcessorSet ReadFromSystem()
    {
        if (!OperatingSystem.IsLinux() || !Libc.IsAvailable)
        {
            return new ProcessorSet([], null, null, static _ => null);
        }

        return new ProcessorSet(ReadAllowed(), ReadSysFile("possible"), ReadSysFile("online"), ReadTopology);
    }

    // The union of the affinity masks of the process's threads: another thread, or one made
    // later from it, may run on any processor in any of them.
    private static unsafe List<int> ReadAllowed()
    {
        const int MaskWords = MaxProcessors / 64;
        ulong* union = stackalloc ulong[MaskWords];
        ulong* mask = stackalloc ulong[MaskWords];
        new Span<ulong>(union, MaskWords).Clear();
        IEnumerable<int> threads;
        try
        {
            threads = [.. Directory.EnumerateDirectories("/proc/self/task")
                .Select(path => int.TryParse(Path.GetFileName(path), NumberStyles.None, CultureInfo.InvariantCulture, out int id) ? id : 0)
                .Where(id => id > 0)];
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            threads = [0];
        }

        foreach (int thread in threads)
        {
            // A thread may end while the list is read: its mask is simply left out.
            if (Libc.SchedGetAffinity(thread, MaskWords * sizeof(ulong), mask) == 0)
            {
                for (int i = 0; i < MaskWords; i++)
                {
                    union[i] |= mask[i];
                }
            }
        }

        var ids = new List<int>();
        for (int word = 0; word < MaskWords; word++)
        {
            for (ulong bits = union[word]; bits != 0; bits &= bits - 1)
            {
                ids.Add((word * 64) + BitOperations.TrailingZeroCount(bits));
            }
        }

        return ids;
    }

    private static string? ReadSysFile(string name)
    {
        try
        {
            return File.ReadAllText(Path.Combine(SysCpu, name)).Trim();
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            // /sys may not be mounted in a container: the log then leaves it out.
            return null;
        }
    }

    private static ProcessorTopology? ReadTopology(int id)
    {
        string directory = Path.Combine(SysCpu, "cpu" + id.ToString(CultureInfo.InvariantCulture), "topology");
        return ReadSysInt(Path.Combine(directory, "physical_package_id")) is { } package && ReadSysInt(Path.Combine(directory, "core_id")) is { } core
            ? new ProcessorTopology(package, core)
            : null;
    }

    private static int? ReadSysInt(string path)
    {
        try
        {
            return int.TryParse(File.ReadAllText(path).Trim(), NumberStyles.AllowLeadingSign, CultureInfo.InvariantCulture, out int value) ? value : null;
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            return null;
        }
    }
}

/// <summary>Where a processor sits: its socket (<c>physical_package_id</c>) and its core (<c>core_id</c>, unique within the socket).</summary>
/// <param name="Package">The socket.</param>
/// <param name="Core">The core within the socket; the hardware threads of one core share it.</param>
internal readonly record struct ProcessorTopology(int Package, int Core);
