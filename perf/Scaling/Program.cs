using System.CommandLine;
using System.CommandLine.Parsing;
using System.Globalization;
using ScalableMetrics.Scaling;

// The scaling harness: adds to one counter from 1..N threads, for every implementation, and
// prints (and writes) adds per millisecond. See perf/README.md.
var threadsOption = new Option<int[]>("--threads")
{
    Description = "Comma-separated thread counts, e.g. 1,2,4 (default: 1 up to the number of logical processors).",
    CustomParser = ParseThreadCounts,
    DefaultValueFactory = _ => [.. Enumerable.Range(1, Environment.ProcessorCount)],
};
var secondsOption = new Option<double>("--seconds")
{
    Description = "Seconds each point runs.",
    DefaultValueFactory = _ => 2,
};
var repeatOption = new Option<int>("--repeat")
{
    Description = "Runs of each point; the median is reported.",
    DefaultValueFactory = _ => 3,
};
var pinOption = new Option<bool>("--pin")
{
    Description = "Pin worker i to the i-th processor the process may use (Linux, sched_setaffinity); off by default.",
};
var implOption = new Option<string[]>("--impl")
{
    Description = $"Comma-separated implementations to measure (default: all): {string.Join(", ", ImplementationCatalog.Ids)}; '{ImplementationCatalog.TaggedSet}' for every tagged workload, or a pattern with '*' (e.g. 'aspnetcore-histogram-*', '*-addmeter').",
    CustomParser = ParseImplementationIds,
    DefaultValueFactory = _ => [.. ImplementationCatalog.Ids],
};
var busyOption = new Option<double?>("--max-busy-elsewhere")
{
    Description = "Retake (up to 5 times) a repeat during which other processes used more than this many processors' worth of time (Linux); by default every repeat is kept.",
};
var csvOption = new Option<string?>("--csv") { Description = "Write the results to this CSV file." };
var svgOption = new Option<string?>("--svg") { Description = "Draw ops/ms against threads into this SVG file (needs gnuplot)." };

secondsOption.Validators.Add(result =>
{
    if (result.GetValueOrDefault<double>() is not (> 0 and < 3600))
    {
        result.AddError("--seconds must be above 0 and below 3600.");
    }
});
repeatOption.Validators.Add(result =>
{
    if (result.GetValueOrDefault<int>() < 1)
    {
        result.AddError("--repeat must be at least 1.");
    }
});

var root = new RootCommand("Measures how adds to one counter scale with threads, for ScalableMetrics' partitioned counter and the alternatives it is compared with.")
{
    threadsOption, secondsOption, repeatOption, pinOption, implOption, busyOption, csvOption, svgOption,
};
root.SetAction(parseResult => ScalingCommand.Run(
    new ScalingOptions(
        parseResult.GetValue(threadsOption)!,
        parseResult.GetValue(secondsOption),
        parseResult.GetValue(repeatOption),
        parseResult.GetValue(pinOption),
        parseResult.GetValue(implOption)!,
        parseResult.GetValue(csvOption),
        parseResult.GetValue(svgOption),
        parseResult.GetValue(busyOption)),
    Console.Out,
    Console.Error));
var partitionsOption = new Option<int[]>("--partitions")
{
    Description = "Comma-separated partition counts (MetricRegistryOptions.PartitionCount; per thread: thread indexes), e.g. 2,64,192.",
    CustomParser = result => ParsePositiveList(result, "--partitions", 65_536),
    DefaultValueFactory = _ => [2, 64, 192],
};
var seriesOption = new Option<int[]>("--series")
{
    Description = "Comma-separated series counts, e.g. 1,1000,10000,100000.",
    CustomParser = result => ParsePositiveList(result, "--series", 10_000_000),
    DefaultValueFactory = _ => [1, 1_000, 10_000, 100_000],
};
var instrumentOption = new Option<string[]>("--instrument")
{
    Description = $"Comma-separated instrument kinds: {string.Join(", ", MemoryCommand.InstrumentKinds)} (default: all; histogram: default boundaries, 16 buckets; exponential-histogram: its defaults; operation: count and elapsed time, no boundaries).",
    CustomParser = ParseInstrumentKinds,
    DefaultValueFactory = _ => [.. MemoryCommand.InstrumentKinds],
};
var hotSeriesOption = new Option<int>("--hot-series")
{
    Description = "Before measuring, write this many of the series from 2 threads at once for a second (default 0).",
    DefaultValueFactory = _ => 0,
};
hotSeriesOption.Validators.Add(result =>
{
    if (result.GetValueOrDefault<int>() < 0)
    {
        result.AddError("--hot-series must be 0 or more.");
    }
});
var modeOption = new Option<string[]>("--mode")
{
    Description = $"Comma-separated series storage modes: {string.Join(", ", MemoryCommand.Modes)} (default: all; adaptive: compact until contended, the default; per-partition: a copy per partition from creation; compact: never promoted).",
    CustomParser = ParseModes,
    DefaultValueFactory = _ => [.. MemoryCommand.Modes],
};
var memoryCsvOption = new Option<string?>("--csv") { Description = $"Write the results to this CSV file ({MemoryCommand.CsvHeader})." };
var memory = new Command("memory", "Measures the bytes one series costs (GC heap and pinned heap, all-in; and resident memory) and the time of one collection of all series, per instrument kind, write path, partition count and series count.")
{
    instrumentOption, modeOption, partitionsOption, seriesOption, hotSeriesOption, memoryCsvOption,
};
memory.SetAction(parseResult => MemoryCommand.Run(
    parseResult.GetValue(instrumentOption)!,
    parseResult.GetValue(modeOption)!,
    parseResult.GetValue(partitionsOption)!,
    parseResult.GetValue(seriesOption)!,
    parseResult.GetValue(hotSeriesOption),
    parseResult.GetValue(memoryCsvOption),
    Console.Out,
    Console.Error));
root.Subcommands.Add(memory);

var churnSeriesOption = new Option<int>("--series") { Description = "Series created, removed and created again (default 100000).", DefaultValueFactory = _ => 100_000 };
var churnCsvOption = new Option<string?>("--csv") { Description = $"Write the results to this CSV file ({ChurnCommand.CsvHeader})." };
var churn = new Command("memory-churn", "Creates N series, removes them all, and creates N new ones: whether a removed series' memory comes back to the arena for reuse (issue 30), per instrument kind and partition count.")
{
    instrumentOption, partitionsOption, churnSeriesOption, churnCsvOption,
};
churn.SetAction(parseResult => ChurnCommand.Run(
    parseResult.GetValue(instrumentOption)!,
    parseResult.GetValue(partitionsOption)!,
    parseResult.GetValue(churnSeriesOption),
    parseResult.GetValue(churnCsvOption),
    Console.Out,
    Console.Error));
root.Subcommands.Add(churn);

var trialsOption = new Option<int>("--trials") { Description = "Trials (default 200).", DefaultValueFactory = _ => 200 };
var limitOption = new Option<double>("--limit-seconds") { Description = "Seconds a trial may run before it counts as not promoted (default 1).", DefaultValueFactory = _ => 1 };
var promotion = new Command("promotion", "Measures how long two threads writing one fresh series of an adaptive registry take to get it promoted to a copy per partition.")
{
    trialsOption, limitOption,
};
promotion.SetAction(parseResult => PromotionCommand.Run(Math.Max(1, parseResult.GetValue(trialsOption)), parseResult.GetValue(limitOption), Console.Out));
root.Subcommands.Add(promotion);
var chartCsvOption = new Option<string>("--csv") { Description = "The harness CSV to draw (--csv of a run, on this machine or another).", Required = true };
var chartSvgOption = new Option<string>("--svg") { Description = "The SVG file to write (needs gnuplot).", Required = true };
var chartMachineOption = new Option<string>("--machine") { Description = "The machine the CSV was measured on, the title's second line (a run prints it after 'machine:').", Required = true };
var chartImplOption = new Option<string[]>("--impl")
{
    Description = "Comma-separated implementations to draw, in this order (default: every implementation in the CSV, in its order).",
    CustomParser = result => [.. SplitList(result)],
};
var chart = new Command("chart", "Draws a harness CSV as an SVG, as --svg draws a run: for a CSV taken on a machine without gnuplot.")
{
    chartCsvOption, chartSvgOption, chartMachineOption, chartImplOption,
};
chart.SetAction(parseResult => ChartCommand.Run(
    parseResult.GetValue(chartCsvOption)!,
    parseResult.GetValue(chartSvgOption)!,
    parseResult.GetValue(chartMachineOption)!,
    parseResult.GetValue(chartImplOption),
    Console.Out,
    Console.Error));
root.Subcommands.Add(chart);
return root.Parse(args).Invoke();

static int[] ParsePositiveList(ArgumentResult result, string name, int max)
{
    var values = new SortedSet<int>();
    foreach (string part in SplitList(result))
    {
        if (!int.TryParse(part, NumberStyles.None, CultureInfo.InvariantCulture, out int value) || value < 1 || value > max)
        {
            result.AddError($"{name}: '{part}' is not a whole number from 1 to {max}.");
            return [];
        }

        values.Add(value);
    }

    if (values.Count == 0)
    {
        result.AddError($"{name} needs at least one value.");
    }

    return [.. values];
}

static int[] ParseThreadCounts(ArgumentResult result)
{
    var counts = new SortedSet<int>();
    foreach (string part in SplitList(result))
    {
        if (!int.TryParse(part, NumberStyles.None, CultureInfo.InvariantCulture, out int count) || count is < 1 or > 4096)
        {
            result.AddError($"--threads: '{part}' is not a thread count from 1 to 4096.");
            return [];
        }

        counts.Add(count);
    }

    if (counts.Count == 0)
    {
        result.AddError("--threads needs at least one thread count.");
    }

    return [.. counts];
}

static string[] ParseImplementationIds(ArgumentResult result)
{
    var selected = new HashSet<string>(StringComparer.Ordinal);
    foreach (string part in SplitList(result))
    {
        IReadOnlyList<string> named = ImplementationCatalog.Select(part);
        if (named.Count == 0)
        {
            result.AddError($"--impl: '{part}' names no implementation; known: {string.Join(", ", ImplementationCatalog.Ids)}, the set '{ImplementationCatalog.TaggedSet}', or a pattern with '*'.");
            return [];
        }

        selected.UnionWith(named);
    }

    if (selected.Count == 0)
    {
        result.AddError("--impl needs at least one implementation.");
    }

    // Catalog order, whatever order they were given in, so that tables and charts line up across runs.
    return [.. ImplementationCatalog.Ids.Where(selected.Contains)];
}

static string[] ParseInstrumentKinds(ArgumentResult result)
{
    var selected = new HashSet<string>(StringComparer.Ordinal);
    foreach (string part in SplitList(result))
    {
        if (!MemoryCommand.InstrumentKinds.Contains(part))
        {
            result.AddError($"--instrument: unknown instrument kind '{part}'; known: {string.Join(", ", MemoryCommand.InstrumentKinds)}.");
            return [];
        }

        selected.Add(part);
    }

    if (selected.Count == 0)
    {
        result.AddError("--instrument needs at least one instrument kind.");
    }

    return [.. MemoryCommand.InstrumentKinds.Where(selected.Contains)];
}

static string[] ParseModes(ArgumentResult result)
{
    var selected = new HashSet<string>(StringComparer.Ordinal);
    foreach (string part in SplitList(result))
    {
        if (!MemoryCommand.Modes.Contains(part))
        {
            result.AddError($"--mode: unknown storage mode '{part}'; known: {string.Join(", ", MemoryCommand.Modes)}.");
            return [];
        }

        selected.Add(part);
    }

    if (selected.Count == 0)
    {
        result.AddError("--mode needs at least one storage mode.");
    }

    return [.. MemoryCommand.Modes.Where(selected.Contains)];
}

static IEnumerable<string> SplitList(ArgumentResult result) =>
    result.Tokens.SelectMany(t => t.Value.Split(',', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries));
