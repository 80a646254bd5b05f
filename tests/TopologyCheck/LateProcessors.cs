using ScalableMetrics.Cells;
using ScalableMetrics.Platform;
using ScalableMetrics.Platform.Rseq;

namespace ScalableMetrics.TopologyCheck;

/// <summary>
/// Processors brought online after the library sized its partitions: the partitions stay as they
/// were (the processors the process could use at start), and the restartable adds of threads on
/// the late processors go to the overflow region, which the overflow count must show; every total
/// stays exact.
/// </summary>
internal static class LateProcessors
{
    public static void Run(MetricRegistry registry, IReadOnlyList<int> late, int adds, TextWriter output, Action<bool, string> expect)
    {
        foreach (int cpu in late)
        {
            Cpus.SetOnline(cpu, true);
        }

        IReadOnlyList<int> online = Cpus.Online();
        expect(late.All(online.Contains), $"processors {Cpus.Format(late)} brought online (online now {Cpus.Format(online)})");
        CounterSeries counter = registry.CreateCounter("late.counter").Bind();
        long before = OverflowRegionAdds.Count;

        // A writer pinned to each online processor; all add until every one has made its share,
        // so that they run at once (mm_cid numbers threads running at once).
        long[] done = new long[online.Count];
        int[] interlockedPartition = new int[online.Count];
        int finished = 0;
        Thread[] writers = [.. online.Select((cpu, t) => new Thread(() =>
        {
            Cpus.Pin(cpu);
            interlockedPartition[t] = ProcessorId.CurrentPartition();
            long rounds = 0;
            bool counted = false;
            while (!counted || Volatile.Read(ref finished) < online.Count)
            {
                counter.Add(1);
                if (++rounds == adds)
                {
                    counted = true;
                    Interlocked.Increment(ref finished);
                }
            }

            done[t] = rounds;
        })
        { IsBackground = true })];
        foreach (Thread writer in writers)
        {
            writer.Start();
        }

        foreach (Thread writer in writers)
        {
            writer.Join();
        }

        long overflow = OverflowRegionAdds.Count - before;
        long onLate = online.Select((cpu, t) => late.Contains(cpu) ? done[t] : 0).Sum();
        output.WriteLine($"late processors {Cpus.Format(late)}: {done.Sum()} adds from {online.Count} pinned writers, {onLate} of them on the late processors; overflow-region adds {overflow}; Interlocked partitions of the late processors: {string.Join(",", online.Select((cpu, t) => late.Contains(cpu) ? $"{cpu}->{interlockedPartition[t]}" : null).Where(p => p is not null))}");
        expect(counter.Read() == done.Sum(), $"late: counter {counter.Read()} = {done.Sum()}");
        expect(registry.PartitionCount == online.Count - late.Count, $"late: the partitions stay those of start, {registry.PartitionCount} = {online.Count} - {late.Count}");
        if (RestartableSequence.IdField == RseqIdField.CpuId)
        {
            // cpu_id: the late processors have no region, the others do: exactly their adds overflow.
            expect(overflow == onLate, $"late, cpu_id: overflow-region adds {overflow} = the late processors' adds {onLate}");
        }
        else
        {
            // mm_cid numbers the running threads: more threads at once than regions, so some overflow.
            expect(overflow > 0 && overflow <= done.Sum(), $"late, mm_cid: overflow-region adds {overflow} > 0, with {online.Count} writers at once on {registry.PartitionCount} regions");
        }
    }
}
