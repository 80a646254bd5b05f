using System.ComponentModel;
using System.Diagnostics;
using System.Globalization;
using System.Text;

namespace ScalableMetrics.Scaling;

/// <summary>
/// Draws ops/ms against threads, one line per implementation, as an SVG, by running gnuplot as a
/// child process (no charting package is available from our package source; gnuplot is a
/// well-kept charting program, <c>apt-get install gnuplot-nox</c> on Debian and Ubuntu).
/// </summary>
internal static class GnuplotChart
{
    // Ten colours, so that a chart of up to ten lines repeats none (gnuplot's default cycle has eight).
    private static readonly string[] s_colors = ["#9400d3", "#009e73", "#56b4e9", "#e69f00", "#c8b400", "#0072b2", "#e51e10", "#000000", "#a0522d", "#808080"];

    /// <summary>Draws <paramref name="results"/>, a line per implementation in their order, into the SVG at <paramref name="path"/>.</summary>
    /// <param name="path">The SVG file.</param>
    /// <param name="results">The points: a run's, or a CSV's (<see cref="CsvResults.Read"/>).</param>
    /// <param name="machine">The machine the points were measured on, the title's second line (<see cref="MachineInfo.ToString"/>).</param>
    /// <exception cref="InvalidOperationException">gnuplot is not installed, or failed.</exception>
    public static void Write(string path, IReadOnlyList<PointResult> results, string machine)
    {
        string script = BuildScript(Path.GetFullPath(path), results, machine);
        var start = new ProcessStartInfo("gnuplot")
        {
            RedirectStandardInput = true,
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            UseShellExecute = false,
        };

        Process process;
        try
        {
            process = Process.Start(start) ?? throw new InvalidOperationException("gnuplot did not start.");
        }
        catch (Win32Exception e)
        {
            throw new InvalidOperationException(
                $"--svg needs gnuplot on the PATH, and it was not found ({e.Message}). Install it (Debian/Ubuntu: apt-get install -y gnuplot-nox) or leave out --svg.", e);
        }

        using (process)
        {
            // gnuplot draws to its standard output when it cannot open the file: keep that off the terminal.
            Task<string> drawnToStandardOutput = process.StandardOutput.ReadToEndAsync();
            Task<string> errorsRead = process.StandardError.ReadToEndAsync();
            process.StandardInput.Write(script);
            process.StandardInput.Close();
            process.WaitForExit();
            string errors = errorsRead.GetAwaiter().GetResult();
            _ = drawnToStandardOutput.GetAwaiter().GetResult();
            if (process.ExitCode != 0)
            {
                throw new InvalidOperationException($"gnuplot failed with exit code {process.ExitCode}: {errors.Trim()}");
            }
        }
    }

    private static string BuildScript(string path, IReadOnlyList<PointResult> results, string machine)
    {
        var ids = results.Select(r => r.Implementation).Distinct().ToList();
        var threads = results.Select(r => r.Threads).Distinct().Order().ToList();
        bool pinned = results.Count > 0 && results[0].Pinned;
        var script = new StringBuilder();
        script.AppendLine("set terminal svg size 960,600 dynamic font 'sans,12' background rgb 'white'");
        script.AppendLine(Invariant($"set output {Quote(path)}"));
        script.AppendLine(Invariant($"set title {Quote($"Adds to one counter, {(pinned ? "pinned" : "unpinned")} threads\n{machine}")} noenhanced"));
        script.AppendLine("set xlabel 'threads'");
        script.AppendLine("set ylabel 'adds per millisecond, all threads (log scale)'");
        script.AppendLine("set logscale y");
        script.AppendLine("set format y '%.0s%c'");
        script.AppendLine(Invariant($"set xtics ({string.Join(", ", threads)})"));
        script.AppendLine(Invariant($"set xrange [{threads[0] - 0.25}:{threads[^1] + 0.25}]"));
        script.AppendLine("set grid");
        script.AppendLine("set pointsize 1.5");
        script.AppendLine("set key outside right top noenhanced");
        for (int i = 0; i < ids.Count; i++)
        {
            script.AppendLine(Invariant($"$d{i} << EOD"));
            foreach (PointResult result in results.Where(r => r.Implementation == ids[i]))
            {
                script.AppendLine(Invariant($"{result.Threads} {result.OpsPerMillisecond:0.0}"));
            }

            script.AppendLine("EOD");
        }

        script.Append("plot ");
        script.AppendLine(string.Join(", ", ids.Select((id, i) => Invariant($"$d{i} using 1:2 with linespoints linewidth 2 linecolor rgb '{s_colors[i % s_colors.Length]}' pointtype {(i % 7) + 1} title {Quote(id)}"))));
        return script.ToString();
    }

    // A gnuplot double-quoted string, so that a newline in the title becomes a line break.
    private static string Quote(string text) =>
        "\"" + text.Replace("\\", "\\\\", StringComparison.Ordinal).Replace("\"", "\\\"", StringComparison.Ordinal).Replace("\n", "\\n", StringComparison.Ordinal) + "\"";

    private static string Invariant(FormattableString text) => text.ToString(CultureInfo.InvariantCulture);
}
