using System.Globalization;

namespace ScalableMetrics.Scaling;

/// <summary>
/// Reads numbers from a Linux <c>/proc</c> status file (<c>/proc/self/status</c>,
/// <c>/proc/thread-self/status</c>): lines of a key, a colon and a number, with an optional
/// <c>kB</c> unit (proc(5)). Where the file does not exist (another OS) or cannot be read, every
/// value is unknown.
/// </summary>
internal static class ProcStatus
{
    /// <summary>The numbers of the lines whose key is one of <paramref name="keys"/>, in their order; -1 for a key the file lacks, or every key where there is no file.</summary>
    /// <param name="path">The status file.</param>
    /// <param name="keys">The keys, without the colon (<c>VmRSS</c>, <c>voluntary_ctxt_switches</c>).</param>
    /// <returns>One number a key, as written (kilobytes where the line says <c>kB</c>).</returns>
    public static long[] Read(string path, params string[] keys)
    {
        long[] values = [.. keys.Select(_ => -1L)];
        try
        {
            foreach (string line in File.ReadLines(path))
            {
                int colon = line.IndexOf(':', StringComparison.Ordinal);
                int key = colon < 0 ? -1 : Array.IndexOf(keys, line[..colon]);
                if (key >= 0
                    && long.TryParse(line.AsSpan(colon + 1).Trim().TrimEnd("kB").Trim(), NumberStyles.Integer, CultureInfo.InvariantCulture, out long value))
                {
                    values[key] = value;
                }
            }
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            // No /proc: every value unknown.
        }

        return values;
    }
}
