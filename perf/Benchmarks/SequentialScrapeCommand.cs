using System.Diagnostics;
using System.Globalization;

namespace ScalableMetrics.Benchmarks;

/// <summary>
/// <c>-- scrape-sequential [SCRAPES [ROUNDS [FILTER]]]</c>: one scraper, one scrape at a time,
/// against the services of <see cref="HttpScrapeServices"/>: per target the median time of a
/// scrape and the bytes the process allocated per scrape (client and server together), with
/// each target's ratio to OpenTelemetry's exporter with its cache off in the same format.
/// </summary>
/// <remarks>
/// <para>Not a BenchmarkDotNet run: the targets take turns within each round (SCRAPES scrapes of
/// each target, 50 by default; ROUNDS rounds, 7 by default), so that drift on a shared machine
/// (other builds, heat) falls on every target alike, and the ratios are of medians taken side by
/// side. The allocations are <see cref="GC.GetTotalAllocatedBytes(bool)"/> around a round's scrapes
/// of one target, the fewest of the rounds: deterministic where the times are not; with them, the
/// full (gen2) collections the process made per 100 scrapes of the target.</para>
/// <para>FILTER keeps the targets whose name contains it (<c>text</c>, <c>ours</c>), and the
/// baselines they are compared with. Run with a large SCRAPES and one FILTER to profile a scrape
/// loop (<c>perf record -g -p PID</c> with <c>DOTNET_PerfMapEnabled=1</c> and
/// <c>DOTNET_EnableWriteXorExecute=0</c>, without which perf cannot name the JIT's frames).
/// With <c>SCRAPE_ALLOCATION_SAMPLES=FILTER</c> set, the runtime's allocation samples of the
/// targets FILTER names are printed by type (<see cref="AllocationTicks"/>).</para>
/// </remarks>
internal static class SequentialScrapeCommand
{
    /// <summary>The first argument that selects this command.</summary>
    public const string Command = "scrape-sequential";

    private const string Baseline = "opentelemetry cache off";

    // Names the targets (a filter, as the third argument) whose allocations are sampled by type.
    private const string SampledVariable = "SCRAPE_ALLOCATION_SAMPLES";

    /// <summary>Runs the command with the arguments after its name; returns the process's exit code.</summary>
    public static async Task<int> RunAsync(string[] arguments, TextWriter output)
    {
        int scrapes = 50;
        int rounds = 7;
        if ((arguments.Length > 0 && !int.TryParse(arguments[0], NumberStyles.None, CultureInfo.InvariantCulture, out scrapes))
            || (arguments.Length > 1 && !int.TryParse(arguments[1], NumberStyles.None, CultureInfo.InvariantCulture, out rounds))
            || arguments.Length > 3 || scrapes < 1 || rounds < 1)
        {
            output.WriteLine($"usage: {Command} [SCRAPES per target and round (default 50) [ROUNDS (default 7) [FILTER (a part of the targets' names)]]]");
            return 1;
        }

        string filter = arguments.Length > 2 ? arguments[2] : string.Empty;
        await using HttpScrapeServices services = await HttpScrapeServices.StartAsync();
        using HttpClient client = HttpScrapeServices.NewClient();
        await services.CheckAsync(client);
        ScrapeTarget[] targets = [.. services.Targets.Where(t => Matches(t, filter) || (filter.Length > 0 && !filter.EndsWith('$') && t.Name.StartsWith(Baseline, StringComparison.Ordinal) && services.Targets.Any(o => Matches(o, filter) && FormatOf(o) == FormatOf(t))))];
        output.WriteLine($"{HttpScrapeServices.CounterSeries:N0} counter series, {HttpScrapeServices.HistogramSeries:N0} histogram series; one scraper; {scrapes} scrapes per target, {rounds} rounds; {Environment.ProcessorCount} logical cores");

        string? sampled = Environment.GetEnvironmentVariable(SampledVariable);
        using AllocationTicks? ticks = sampled is null ? null : new AllocationTicks();
        var times = targets.ToDictionary(t => t.Name, _ => new List<double>());
        var allocated = targets.ToDictionary(t => t.Name, _ => long.MaxValue);
        var gen2 = targets.ToDictionary(t => t.Name, _ => 0);
        var cpu = targets.ToDictionary(t => t.Name, _ => new List<double>());
        for (int round = 0; round < rounds; round++)
        {
            foreach (ScrapeTarget target in targets)
            {
                // A few scrapes first, so that the round measures none of the previous target's garbage or a cold connection.
                for (int i = 0; i < 3; i++)
                {
                    await HttpScrapeServices.ScrapeAsync(client, target);
                }

                if (ticks is not null)
                {
                    ticks.IsOn = Matches(target, sampled!);
                }

                int gen2Before = GC.CollectionCount(2);
                long before = GC.GetTotalAllocatedBytes(precise: true);
                TimeSpan cpuBefore = Environment.CpuUsage.TotalTime;
                var clock = Stopwatch.StartNew();
                for (int i = 0; i < scrapes; i++)
                {
                    await HttpScrapeServices.ScrapeAsync(client, target);
                }

                times[target.Name].Add(clock.Elapsed.TotalMilliseconds / scrapes);
                cpu[target.Name].Add((Environment.CpuUsage.TotalTime - cpuBefore).TotalMilliseconds / scrapes);
                allocated[target.Name] = Math.Min(allocated[target.Name], (GC.GetTotalAllocatedBytes(precise: true) - before) / scrapes);
                gen2[target.Name] += GC.CollectionCount(2) - gen2Before;
            }
        }

        if (ticks is not null)
        {
            ticks.IsOn = false;
            output.WriteLine($"Allocation samples of '{sampled}' per scrape, by type (about 100 KB a sample: proportions, not exact bytes):");
            foreach ((string type, long bytes) in ticks.ByType.Take(25))
            {
                output.WriteLine(string.Create(CultureInfo.InvariantCulture, $"{bytes / (rounds * scrapes),14:N0}  {type}"));
            }
        }

        output.WriteLine($"{"target",-42} {"median ms",10} {"min ms",8} {"max ms",8} {"x baseline",11} {"allocated/scrape",17} {"gen2 GCs/100",13} {"cpu ms",8} {"cpu x baseline",15}");
        foreach (ScrapeTarget target in targets)
        {
            double median = Median(times[target.Name]);
            string baseline = $"{Baseline} {FormatOf(target)}";
            string ratio = times.TryGetValue(baseline, out List<double>? baselineTimes) ? (median / Median(baselineTimes)).ToString("0.00", CultureInfo.InvariantCulture) : "";
            double cpuMedian = Median(cpu[target.Name]);
            string cpuRatio = cpu.TryGetValue(baseline, out List<double>? baselineCpu) ? (cpuMedian / Median(baselineCpu)).ToString("0.00", CultureInfo.InvariantCulture) : "";
            output.WriteLine(string.Create(
                CultureInfo.InvariantCulture,
                $"{target.Name,-42} {median,10:N3} {times[target.Name].Min(),8:N3} {times[target.Name].Max(),8:N3} {ratio,11} {allocated[target.Name],17:N0} {100.0 * gen2[target.Name] / (rounds * scrapes),13:N1} {cpuMedian,8:N3} {cpuRatio,15}"));
        }

        return 0;
    }

    // A part of the name, or the whole name where the filter ends with '$' (then alone, without its baseline: to profile one target).
    private static bool Matches(ScrapeTarget target, string filter) =>
        filter.EndsWith('$') ? target.Name == filter[..^1] : target.Name.Contains(filter, StringComparison.Ordinal);

    // The format and encoding part of a target's name: "text gzip" of "ours text gzip".
    private static string FormatOf(ScrapeTarget target) =>
        target.Name.Split(' ') is var words && words[^1] == "gzip" ? $"{words[^2]} gzip" : words[^1];

    private static double Median(List<double> values)
    {
        double[] sorted = [.. values.Order()];
        return sorted.Length % 2 == 1 ? sorted[sorted.Length / 2] : (sorted[(sorted.Length / 2) - 1] + sorted[sorted.Length / 2]) / 2;
    }
}
