using System.Globalization;

namespace ScalableMetrics.Scaling;

/// <summary>Writes the results as CSV, one row per point (the median of its repeats).</summary>
internal static class CsvResults
{
    public const string Header = "implementation,threads,ops_per_ms,ops_per_ms_per_thread,speedup,pinned";

    public static void Write(string path, IReadOnlyList<PointResult> results)
    {
        using var writer = new StreamWriter(path);
        writer.WriteLine(Header);
        foreach (PointResult result in results)
        {
            writer.WriteLine(string.Create(
                CultureInfo.InvariantCulture,
                $"{result.Implementation},{result.Threads},{result.OpsPerMillisecond:0.0},{result.OpsPerMillisecondPerThread:0.0},{result.Speedup:0.000},{(result.Pinned ? "true" : "false")}"));
        }
    }
}
