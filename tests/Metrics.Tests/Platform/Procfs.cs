using System.Globalization;
using System.Runtime.Versioning;

namespace ScalableMetrics.Tests.Platform;

/// <summary>What the kernel reports about the calling thread in procfs: a route apart from the core's <c>sched_getcpu</c> and rseq reads.</summary>
[SupportedOSPlatform("linux")]
internal static class Procfs
{
    /// <summary>The processor the calling thread runs on, from <c>/proc/thread-self/stat</c> (field 39, <c>processor</c>); -1 where the file or the field is missing.</summary>
    public static int CurrentProcessor()
    {
        if (!File.Exists("/proc/thread-self/stat"))
        {
            return -1;
        }

        string stat = File.ReadAllText("/proc/thread-self/stat");

        // Fields from the third on follow the command name's closing parenthesis.
        string[] fields = stat[(stat.LastIndexOf(')') + 2)..].Split(' ');
        return fields.Length > 39 - 3 && int.TryParse(fields[39 - 3], NumberStyles.None, CultureInfo.InvariantCulture, out int processor) ? processor : -1;
    }
}
