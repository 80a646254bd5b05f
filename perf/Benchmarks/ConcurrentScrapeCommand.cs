using System.Diagnostics;
using System.Globalization;

namespace ScalableMetrics.Benchmarks;

/// <summary>
/// <c>-- scrape-concurrent [SCRAPERS [SECONDS]]</c>: scrapes per second that the services of
/// <see cref="HttpScrapeServices"/> answer under concurrent scrapers (16 by default), for every
/// target, each for a few seconds (5 by default), the targets in turn.
/// </summary>
/// <remarks>Not a BenchmarkDotNet benchmark: a throughput under load, counted over a fixed time, as
/// <c>ab -c 16</c> reports it. Each scraper loops on its own: send, read the body to its end, again,
/// over a shared client with a connection per scraper; the count is of the scrapes completed in the
/// time, the mean latency the time over them; for ours, the scrapes each collection served (how
/// well concurrent scrapes were coalesced). Every target is checked first.</remarks>
internal static class ConcurrentScrapeCommand
{
    /// <summary>The first argument that selects this command.</summary>
    public const string Command = "scrape-concurrent";

    private const int DefaultScrapers = 16;
    private const double DefaultSeconds = 5;

    /// <summary>Runs the command with the arguments after its name; returns the process's exit code.</summary>
    public static async Task<int> RunAsync(string[] arguments, TextWriter output)
    {
        int scrapers = DefaultScrapers;
        double seconds = DefaultSeconds;
        if ((arguments.Length > 0 && !int.TryParse(arguments[0], NumberStyles.None, CultureInfo.InvariantCulture, out scrapers))
            || (arguments.Length > 1 && !double.TryParse(arguments[1], NumberStyles.Float, CultureInfo.InvariantCulture, out seconds))
            || arguments.Length > 2 || scrapers is < 1 or > 256 || seconds is not (> 0 and <= 600))
        {
            output.WriteLine($"usage: {Command} [SCRAPERS (1..256, default {DefaultScrapers}) [SECONDS per target (up to 600, default {DefaultSeconds})]]");
            return 1;
        }

        await using HttpScrapeServices services = await HttpScrapeServices.StartAsync();
        using HttpClient client = HttpScrapeServices.NewClient();
        await services.CheckAsync(client);
        output.WriteLine($"{HttpScrapeServices.CounterSeries:N0} counter series, {HttpScrapeServices.HistogramSeries:N0} histogram series; {scrapers} concurrent scrapers, {seconds:0.##} s per target; {Environment.ProcessorCount} logical cores");
        output.WriteLine($"{"target",-42} {"scrapes/s",10} {"mean ms",9} {"bytes/scrape",13} {"scrapes/collection",19}");
        foreach (ScrapeTarget target in services.Targets)
        {
            int collections = services.OurCollections;
            (long scrapes, long bytes, double elapsed) = await LoadAsync(client, target, scrapers, TimeSpan.FromSeconds(seconds));
            collections = services.OurCollections - collections;

            // Ours only: OpenTelemetry's exporter does not say how many collections it ran.
            string perCollection = collections > 0 ? ((double)scrapes / collections).ToString("N1", CultureInfo.InvariantCulture) : string.Empty;
            output.WriteLine(string.Create(
                CultureInfo.InvariantCulture,
                $"{target.Name,-42} {scrapes / elapsed,10:N1} {elapsed * 1000 * scrapers / Math.Max(1, scrapes),9:N2} {bytes / Math.Max(1, scrapes),13:N0} {perCollection,19}"));
        }

        return 0;
    }

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
