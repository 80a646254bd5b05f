using System.Globalization;

namespace ScalableMetrics.TopologyCheck;

/// <summary>
/// What one run of the check does, in the order it does it:
/// <list type="number">
/// <item><c>--prefer-cpu-id</c>: sets <c>ScalableMetrics.RestartableSequencesPreferCpuId</c> before the library starts;</item>
/// <item><c>--expect-partitions N</c>, <c>--expect-field cpu_id|mm_cid</c>: the partitions (both per-processor write paths)
/// and the restartable id field the library must choose; the partitions are also checked against the processors the
/// process may use, read here from <c>/proc/self/status</c> and the online list;</item>
/// <item><c>--threads T --adds N</c>: every instrument kind, on every write path, under T writer threads with a scraper
/// reading throughout, exact at the end; with <c>--cycle-cpus LIST</c>, those processors are taken offline and back
/// while the writers run;</item>
/// <item><c>--online-late LIST</c>: those processors, offline when the process started, are brought online; a writer
/// pinned to each online processor adds; the overflow count must show the adds of the late ones.</item>
/// </list>
/// </summary>
internal sealed record CheckOptions(bool PreferCpuId, int? ExpectPartitions, string? ExpectField, int Threads, int Adds, IReadOnlyList<int> CycleCpus, IReadOnlyList<int> OnlineLate)
{
    /// <summary>Parses the arguments; throws <see cref="ArgumentException"/> naming the bad one.</summary>
    public static CheckOptions Parse(IReadOnlyList<string> args)
    {
        bool prefer = false;
        int? partitions = null;
        string? field = null;
        int threads = 0, adds = 20_000;
        IReadOnlyList<int> cycle = [], late = [];
        for (int i = 0; i < args.Count; i++)
        {
            string Value() => i + 1 < args.Count ? args[++i] : throw new ArgumentException($"{args[i]} needs a value", nameof(args));
            switch (args[i])
            {
                case "--prefer-cpu-id": prefer = true; break;
                case "--expect-partitions": partitions = int.Parse(Value(), CultureInfo.InvariantCulture); break;
                case "--expect-field":
                    field = Value();
                    if (field is not ("cpu_id" or "mm_cid"))
                    {
                        throw new ArgumentException("--expect-field is cpu_id or mm_cid", nameof(args));
                    }

                    break;
                case "--threads": threads = int.Parse(Value(), CultureInfo.InvariantCulture); break;
                case "--adds": adds = int.Parse(Value(), CultureInfo.InvariantCulture); break;
                case "--cycle-cpus": cycle = Cpus.ParseList(Value()); break;
                case "--online-late": late = Cpus.ParseList(Value()); break;
                default: throw new ArgumentException($"unknown argument {args[i]}", nameof(args));
            }
        }

        return new CheckOptions(prefer, partitions, field, threads, adds, cycle, late);
    }
}
