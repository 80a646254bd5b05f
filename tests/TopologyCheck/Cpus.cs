using System.Globalization;
using ScalableMetrics.Platform;
using ScalableMetrics.Platform.Interop;

namespace ScalableMetrics.TopologyCheck;

/// <summary>The guest's processors, read and changed without the library's code under test: procfs, sysfs, <c>sched_setaffinity</c>.</summary>
internal static unsafe class Cpus
{
    private const int MaskWords = 8192 / 64;

    public static IReadOnlyList<int> ParseList(string list)
    {
        var ids = new List<int>();
        foreach (string range in list.Trim().Split(',', StringSplitOptions.RemoveEmptyEntries))
        {
            string[] ends = range.Split('-');
            int first = int.Parse(ends[0], CultureInfo.InvariantCulture);
            int last = int.Parse(ends[^1], CultureInfo.InvariantCulture);
            ids.AddRange(Enumerable.Range(first, last - first + 1));
        }

        return ids;
    }

    /// <summary>The processors this process may use now: its <c>Cpus_allowed_list</c> that are online.</summary>
    public static IReadOnlyList<int> AllowedNow()
    {
        string line = File.ReadAllLines("/proc/self/status").Single(l => l.StartsWith("Cpus_allowed_list:", StringComparison.Ordinal));
        return [.. ParseList(line["Cpus_allowed_list:".Length..]).Intersect(Online())];
    }

    public static IReadOnlyList<int> Online() => ParseList(File.ReadAllText("/sys/devices/system/cpu/online"));

    public static string Format(IReadOnlyList<int> ids) => ProcessorSet.FormatList([.. ids.Order()]);

    /// <summary>Takes a processor offline or brings it online through sysfs (root only).</summary>
    public static void SetOnline(int cpu, bool online) =>
        File.WriteAllText($"/sys/devices/system/cpu/cpu{cpu.ToString(CultureInfo.InvariantCulture)}/online", online ? "1" : "0");

    /// <summary>Pins the calling thread to <paramref name="cpu"/>; throws where it cannot.</summary>
    public static void Pin(int cpu)
    {
        ulong* mask = stackalloc ulong[MaskWords];
        new Span<ulong>(mask, MaskWords).Clear();
        mask[cpu / 64] = 1UL << (cpu % 64);
        if (Libc.SchedSetAffinity(0, MaskWords * sizeof(ulong), mask) != 0)
        {
            throw new InvalidOperationException($"sched_setaffinity to processor {cpu} failed: errno {System.Runtime.InteropServices.Marshal.GetLastPInvokeError()}");
        }
    }
}
