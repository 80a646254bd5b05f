using BenchmarkDotNet.Running;

// Run a category at a time, e.g.:
//   dotnet run -c Release --project perf/Benchmarks -- --filter '*' --anyCategories add --job short
//
// Each benchmark runs in a process of its own (BenchmarkDotNet's default toolchain; the project
// file is named after the assembly so that it can find it). In one process, a benchmark of one
// partition strategy would leave its profile (dynamic PGO) in the code the next benchmark shares.
//
// `-- rseq-partitions` prints the regions a restartable add needs here by cpu_id and by mm_cid
// instead (see RseqPartitionsReport); run it under taskset to confine the process.
//
// `-- scrape-concurrent [SCRAPERS [SECONDS [FILTER]]]` prints the scrapes per second of the HTTP scrape
// benchmark's services under concurrent scrapers (16 by default) instead (see ConcurrentScrapeCommand).
//
// `-- scrape-sequential [SCRAPES [ROUNDS [FILTER]]]` prints the time and the bytes allocated of one
// scrape at a time of those services, the targets taking turns (see SequentialScrapeCommand).
//
// `-- repeat CLASS METHOD COUNT [WARMROUNDS [WARMCALLS]]` runs one benchmark method COUNT times at Tier 1 between two markers
// that callgrind zeroes and dumps its counts at: instructions per call (see RepeatCommand).
if (args is [ScalableMetrics.Benchmarks.RseqPartitionsReport.Command])
{
    ScalableMetrics.Benchmarks.RseqPartitionsReport.Write(Console.Out);
    return 0;
}

if (args is [ScalableMetrics.Benchmarks.ConcurrentScrapeCommand.Command, .. string[] rest])
{
    return await ScalableMetrics.Benchmarks.ConcurrentScrapeCommand.RunAsync(rest, Console.Out);
}

if (args is [ScalableMetrics.Benchmarks.SequentialScrapeCommand.Command, .. string[] sequential])
{
    return await ScalableMetrics.Benchmarks.SequentialScrapeCommand.RunAsync(sequential, Console.Out);
}

if (args is [ScalableMetrics.Benchmarks.RepeatCommand.Command, .. string[] repeat])
{
    return ScalableMetrics.Benchmarks.RepeatCommand.Run(repeat, Console.Out);
}

BenchmarkSwitcher.FromAssembly(typeof(Program).Assembly).Run(args);
return 0;
