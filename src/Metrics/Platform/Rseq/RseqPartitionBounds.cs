using System.Numerics;
using ScalableMetrics.Platform.Interop;

namespace ScalableMetrics.Platform.Rseq;

/// <summary>
/// How many regions a restartable add needs so that every id a thread of the process can report
/// has one: for <c>cpu_id</c>, the highest <em>possible</em> processor id plus one; for
/// <c>mm_cid</c>, the number of processors the process's threads may run on.
/// </summary>
/// <remarks>
/// <para>Not the calling thread's affinity mask (<c>sched_getaffinity(0, …)</c> reads only the
/// calling thread's): another thread, or this one later, may run on any processor the machine
/// has. The possible processors are <c>/sys/devices/system/cpu/possible</c> (hot-pluggable ones
/// included), else <c>sysconf(_SC_NPROCESSORS_CONF)</c>.</para>
/// <para><c>mm_cid</c> is kept below the number of processors in the union of the affinity masks
/// the process's threads have had (<c>mm->nr_cpus_allowed</c>, Linux 6.13+; on 6.3 to 6.12, in
/// practice below the number of processors the process ran on) and the number of its threads.
/// The bound read here is the union of its threads' masks at start; a thread whose mask widens
/// later can get an id past it, and its adds then go to the overflow region: correct, only
/// contended.</para>
/// <para>Thread-safe; every member reads the system afresh.</para>
/// </remarks>
internal static unsafe class RseqPartitionBounds
{
    // 8192 processors, the kernel's largest NR_CPUS.
    private const int MaskWords = 8192 / 64;

    /// <summary>The regions indexing by <paramref name="field"/> needs; at least 1.</summary>
    /// <param name="field">The id that picks the region.</param>
    /// <returns>The partition count.</returns>
    public static int For(RseqIdField field)
    {
        int possible = HighestPossibleProcessor() + 1;
        return field == RseqIdField.MmCid ? Math.Clamp(ProcessAllowedProcessorCount(), 1, possible) : possible;
    }

    /// <summary>The highest processor id the machine can ever bring online.</summary>
    /// <returns>A processor id, 0 or more.</returns>
    public static int HighestPossibleProcessor()
    {
        try
        {
            if (TryParseHighest(File.ReadAllText("/sys/devices/system/cpu/possible"), out int highest))
            {
                return highest;
            }
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            // Fall back below: /sys may not be mounted in a container.
        }

        nint configured = Libc.IsAvailable ? Libc.SysConf(Libc.ScNProcessorsConf) : -1;
        return (int)Math.Clamp(configured > 0 ? configured : Environment.ProcessorCount, 1, MaskWords * 64) - 1;
    }

    /// <summary>
    /// The number of processors in the union of the affinity masks of the process's threads
    /// (<c>/proc/self/task</c>), or of the process's main thread where the tasks cannot be listed.
    /// </summary>
    /// <returns>A count, 1 or more; <see cref="Environment.ProcessorCount"/> where no mask can be read.</returns>
    public static int ProcessAllowedProcessorCount()
    {
        ulong* union = stackalloc ulong[MaskWords];
        ulong* mask = stackalloc ulong[MaskWords];
        new Span<ulong>(union, MaskWords).Clear();
        bool any = false;
        IEnumerable<int> threads;
        try
        {
            threads = Directory.EnumerateDirectories("/proc/self/task").Select(path => int.TryParse(Path.GetFileName(path), out int id) ? id : 0).Where(id => id > 0).ToList();
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            threads = [Environment.ProcessId];
        }

        foreach (int thread in threads)
        {
            // A thread may end while the list is read: its mask is simply left out.
            if (Libc.SchedGetAffinity(thread, MaskWords * sizeof(ulong), mask) == 0)
            {
                any = true;
                for (int i = 0; i < MaskWords; i++)
                {
                    union[i] |= mask[i];
                }
            }
        }

        int count = 0;
        for (int i = 0; i < MaskWords; i++)
        {
            count += BitOperations.PopCount(union[i]);
        }

        return any && count > 0 ? count : Math.Max(1, Environment.ProcessorCount);
    }

    /// <summary>Parses a kernel cpu list (<c>0-3,8,10-11</c>) and returns its highest id.</summary>
    /// <param name="list">The list's text.</param>
    /// <param name="highest">The highest id; -1 where the text is not a list.</param>
    /// <returns>Whether the text was a non-empty list.</returns>
    internal static bool TryParseHighest(string list, out int highest)
    {
        highest = -1;
        foreach (string range in list.Trim().Split(',', StringSplitOptions.RemoveEmptyEntries))
        {
            string last = range[(range.IndexOf('-', StringComparison.Ordinal) + 1)..];
            if (!int.TryParse(last, out int id) || id < 0)
            {
                highest = -1;
                return false;
            }

            highest = Math.Max(highest, id);
        }

        return highest >= 0;
    }
}
