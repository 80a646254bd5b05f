namespace ScalableMetrics.Scaling;

/// <summary>
/// <c>chart</c>: draws a harness CSV with <see cref="GnuplotChart"/>, as <c>--svg</c> draws the run
/// it makes, for a CSV taken on a machine without gnuplot (the device machine of
/// perf/results/README.md, "Sixteen cores").
/// </summary>
internal static class ChartCommand
{
    /// <summary>Reads <paramref name="csvPath"/>, keeps the implementations named (all where none are), and writes the chart.</summary>
    /// <returns>0, or 3 where the CSV could not be read, an implementation named has no rows, or gnuplot failed.</returns>
    public static int Run(string csvPath, string svgPath, string machine, string[]? implementations, TextWriter output, TextWriter error)
    {
        try
        {
            IReadOnlyList<PointResult> rows = CsvResults.Read(csvPath);
            var drawn = new List<PointResult>();
            foreach (string id in implementations is { Length: > 0 } ? implementations : rows.Select(row => row.Implementation).Distinct())
            {
                int before = drawn.Count;
                drawn.AddRange(rows.Where(row => row.Implementation == id));
                if (drawn.Count == before)
                {
                    throw new InvalidOperationException($"{csvPath} has no rows of '{id}'.");
                }
            }

            GnuplotChart.Write(svgPath, drawn, machine);
            output.WriteLine($"wrote {svgPath}");
            return 0;
        }
        catch (Exception e) when (e is InvalidOperationException or IOException or UnauthorizedAccessException)
        {
            error.WriteLine($"error: {e.Message}");
            return ScalingCommand.FailureExitCode;
        }
    }
}
