using System.Globalization;

namespace ScalableMetrics.Scaling;

/// <summary>Writes the results as CSV, one row per point (the median of its repeats), and reads them back.</summary>
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

    /// <summary>Reads a CSV <see cref="Write"/> wrote: each row's median, per-thread figure, speed-up and pinning (the repeats' range and the checks are not in the file).</summary>
    /// <exception cref="InvalidOperationException">The file is not such a CSV.</exception>
    public static IReadOnlyList<PointResult> Read(string path)
    {
        var results = new List<PointResult>();
        using var reader = new StreamReader(path);
        if (reader.ReadLine() != Header)
        {
            throw new InvalidOperationException($"{path} does not start with the harness' CSV header ({Header}).");
        }

        int lineNumber = 1;
        while (reader.ReadLine() is { } line)
        {
            lineNumber++;
            string[] fields = line.Split(',');
            if (fields.Length != 6
                || !int.TryParse(fields[1], NumberStyles.None, CultureInfo.InvariantCulture, out int threads)
                || !double.TryParse(fields[2], NumberStyles.Float, CultureInfo.InvariantCulture, out double opsPerMillisecond)
                || !double.TryParse(fields[4], NumberStyles.Float, CultureInfo.InvariantCulture, out double speedup)
                || !bool.TryParse(fields[5], out bool pinned))
            {
                throw new InvalidOperationException($"{path}, line {lineNumber}: not a row of {Header}.");
            }

            results.Add(new PointResult(fields[0], threads, opsPerMillisecond, opsPerMillisecond, opsPerMillisecond, speedup, pinned, Mismatches: 0, MaxOtherCores: 0));
        }

        return results;
    }
}
