using System.Diagnostics;
using System.Globalization;

namespace ScalableMetrics.Benchmarks;

/// <summary>
/// <c>-- scrape-concurrent [SCRAPERS [SECONDS [FILTER]]]</c>: scrapes per second that the services of
/// <see cref="HttpScrapeServices"/> answer under concurrent scrapers (16 by default), for every
/// target, each for a few seconds (5 by default), the targets in turn.
/// </summary>
/// <remarks>Not a BenchmarkDotNet benchmark: a throughput under load, counted over a fixed time, as
/// <c>ab -c 16</c> reports it; the targets take turns in slices of a second, and each is given
/// as a ratio to OpenTelemetry's exporter with its cache off in the same format. Each scraper loops on its own: send, read the body to its end, again,
/// over a shared client with a connection per scraper; the count is of the scrapes completed in the
/// time, the mean latency the time over them; for ours, the scrapes each collection served (how
/// well concurrent scrapes were coalesced). Every target is checked first. FILTER keeps the
/// targets whose name contains it, or, written <c>=NAME</c>, the one target NAME alone (to profile
/// one target, e.g. <c>"=ours text"</c> without <c>ours text gzip</c>). The bytes the process
/// allocated per scrape (client and server; <see cref="GC.GetTotalAllocatedBytes(bool)"/> around
/// each slice, so a scrape that straddles two slices counts in the later one) and its full (gen2)
/// collections per 100 scrapes show what a response costs the heap under concurrency.</remarks>
internal static class ConcurrentScrapeCommand
{
    /// <summary>The first argument that selects this command.</summary>
    public const string Command = "scrape-concurrent";

    private const int DefaultScrapers = 16;
    private const double DefaultSeconds = 5;
    private const double SliceSeconds = 1;
    private const string Baseline = "opentelemetry cache off";

    /// <summary>Runs the command with the arguments after its name; returns the process's exit code.</summary>
    public static async Task<int> RunAsync(string[] arguments, TextWriter output)
    {
        int scrapers = DefaultScrapers;
        double seconds = DefaultSeconds;
        if ((arguments.Length > 0 && !int.TryParse(arguments[0], NumberStyles.None, CultureInfo.InvariantCulture, out scrapers))
            || (arguments.Length > 1 && !double.TryParse(arguments[1], NumberStyles.Float, CultureInfo.InvariantCulture, out seconds))
            || arguments.Length > 3 || scrapers is < 1 or > 256 || seconds is not (> 0 and <= 600))
        {
            output.WriteLine($"usage: {Command} [SCRAPERS (1..256, default {DefaultScrapers}) [SECONDS per target (up to 600, default {DefaultSeconds}) [FILTER (a part of the targets' names, or =NAME for one target)]]]");
            return 1;
        }

        await using HttpScrapeServices services = await HttpScrapeServices.StartAsync();
        using HttpClient client = HttpScrapeServices.NewClient();
        await services.CheckAsync(client);
        output.WriteLine($"{HttpScrapeServices.CounterSeries:N0} counter series, {HttpScrapeServices.HistogramSeries:N0} histogram series; {scrapers} concurrent scrapers, {seconds:0.##} s per target; {Environment.ProcessorCount} logical cores");
        output.WriteLine($"{"target",-42} {"scrapes/s",10} {"mean ms",9} {"bytes/scrape",13} {"x baseline",11} {"scrapes/collection",19} {"cpu ms/scrape",14} {"cpu x baseline",15} {"allocated/scrape",17} {"gen2 GCs/100",13}");
        string filter = arguments.Length > 2 ? arguments[2] : string.Empty;
        ScrapeTarget[] targets = [.. services.Targets.Where(t => filter.StartsWith('=') ? t.Name == filter[1..] : t.Name.Contains(filter, StringComparison.Ordinal))];

        // The targets take turns, a slice of at most a second each, until each has had its time:
        // on a shared machine, load that comes and goes then falls on every target alike.
        var totals = targets.ToDictionary(t => t.Name, _ => (Scrapes: 0L, Bytes: 0L, Seconds: 0.0, Collections: 0, Cpu: 0.0, Allocated: 0L, Gen2: 0));
        int slices = (int)Math.Ceiling(seconds / SliceSeconds);
        for (int slice = 0; slice < slices; slice++)
        {
            foreach (ScrapeTarget target in targets)
            {
                int collections = services.OurCollections;
                TimeSpan cpuBefore = Environment.CpuUsage.TotalTime;
                long allocatedBefore = GC.GetTotalAllocatedBytes();
                int gen2Before = GC.CollectionCount(2);
                (long scrapes, long bytes, double elapsed) = await LoadAsync(client, target, scrapers, TimeSpan.FromSeconds(seconds / slices));
                double cpu = (Environment.CpuUsage.TotalTime - cpuBefore).TotalMilliseconds;
                var total = totals[target.Name];
                totals[target.Name] = (total.Scrapes + scrapes, total.Bytes + bytes, total.Seconds + elapsed, total.Collections + services.OurCollections - collections, total.Cpu + cpu,
                    total.Allocated + GC.GetTotalAllocatedBytes() - allocatedBefore, total.Gen2 + GC.CollectionCount(2) - gen2Before);
            }
        }

        foreach (ScrapeTarget target in targets)
        {
            (long scrapes, long bytes, double elapsed, int collections, double cpu, long allocated, int gen2) = totals[target.Name];
            double cpuPerScrape = cpu / Math.Max(1, scrapes);
            double rate = scrapes / elapsed;

            // Ours only: OpenTelemetry's exporter does not say how many collections it ran.
            string perCollection = collections > 0 ? ((double)scrapes / collections).ToString("N1", CultureInfo.InvariantCulture) : string.Empty;
            string baseline = $"{Baseline} {FormatOf(target)}";
            string ratio = totals.TryGetValue(baseline, out var b) && b.Scrapes > 0 ? (rate / (b.Scrapes / b.Seconds)).ToString("0.00", CultureInfo.InvariantCulture) : string.Empty;
            string cpuRatio = b.Scrapes > 0 ? (cpuPerScrape / (b.Cpu / b.Scrapes)).ToString("0.00", CultureInfo.InvariantCulture) : string.Empty;
            output.WriteLine(string.Create(
                CultureInfo.InvariantCulture,
                $"{target.Name,-42} {rate,10:N1} {elapsed * 1000 * scrapers / Math.Max(1, scrapes),9:N2} {bytes / Math.Max(1, scrapes),13:N0} {ratio,11} {perCollection,19} {cpuPerScrape,14:N3} {cpuRatio,15} {allocated / Math.Max(1, scrapes),17:N0} {100.0 * gen2 / Math.Max(1, scrapes),13:N1}"));
        }

        return 0;
    }

    // The format and encoding part of a target's name: "text gzip" of "ours text gzip".
    private static string FormatOf(ScrapeTarget target) =>
        target.Name.Split(' ') is var words && words[^1] == "gzip" ? $"{words[^2]} gzip" : words[^1];

    private static async Task<(long Scrapes, long Bytes, double Seconds)> LoadAsync(HttpClient client, ScrapeTarget target, int scrapers, TimeSpan duration)
    {
        long scrapes = 0;
        long bytes = 0;
        var clock = Stopwatch.StartNew();
        await Task.WhenAll(Enumerable.Range(0, scrapers).Select(_ => Task.Run(async () =>
        {
            while (clock.Elapsed < duration)
            {
                int length = await HttpScrapeServices.ScrapeAsync(client, target);
                Interlocked.Increment(ref scrapes);
                Interlocked.Add(ref bytes, length);
            }
        })));

        // The last scrapes finish after the duration: the rate is over the time they took.
        return (scrapes, bytes, clock.Elapsed.TotalSeconds);
    }
}
