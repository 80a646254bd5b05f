using System.Diagnostics;
using ScalableMetrics.Cells;
using ScalableMetrics.Platform.Rseq;

namespace ScalableMetrics.TopologyCheck;

/// <summary>
/// Every kind of instrument on one write path, under writer threads with a scraper reading
/// throughout: every reading of a total is at least the one before, and every total exact at the
/// end; optionally with processors taken offline and back while the writers run (their threads
/// are moved by the kernel, mid-add or not).
/// </summary>
internal static class Exactness
{
    private const int MinimumReads = 5;

    public static void Run(MetricRegistry registry, int threads, int adds, IReadOnlyList<int> cycleCpus, TextWriter output, Action<bool, string> expect)
    {
        string prefix = $"exact.{registry.WritePath}";
        CounterSeries counter = registry.CreateCounter(prefix + ".counter").Bind();
        DoubleCounterSeries doubleCounter = registry.CreateDoubleCounter(prefix + ".double").Bind();
        UpDownCounterSeries upDown = registry.CreateUpDownCounter(prefix + ".updown").Bind();
        HistogramSeries histogram = registry.CreateHistogram(prefix + ".histogram", boundaries: [2, 4, 8]).Bind();
        ExponentialHistogramSeries exponential = registry.CreateExponentialHistogram(prefix + ".exponential").Bind();
        OperationSeries operation = registry.CreateOperationData(prefix + ".operation").Bind();

        long[] done = new long[threads];
        int finished = 0;
        bool stop = false;
        long restartsBefore = RestartableSequence.RestartCount, overflowBefore = OverflowRegionAdds.Count;
        var clock = Stopwatch.StartNew();
        Thread[] writers = [.. Enumerable.Range(0, threads).Select(t => new Thread(() =>
        {
            // Adds a round of every kind until it has made its share and the cycling (if any) is
            // done: the writers outlast the processors' comings and goings.
            long rounds = 0;
            bool counted = false;
            while (!Volatile.Read(ref stop) || rounds < adds)
            {
                counter.Add(1);
                doubleCounter.Add(0.5);
                upDown.Add(rounds % 2 == 0 ? 3 : -1);
                histogram.Record(rounds % 10);
                exponential.Record((rounds % 8) + 1);
                operation.RecordElapsedTicks(5);
                rounds++;
                if (!counted && rounds >= adds)
                {
                    counted = true;
                    Interlocked.Increment(ref finished);
                }
            }

            done[t] = rounds;
        })
        { IsBackground = true })];

        long reads = 0, wentDown = 0;
        var scraper = new Thread(() =>
        {
            (long Counter, double Double, long Histogram, long Exponential, long Operation) last = default;
            while (!Volatile.Read(ref stop) || Volatile.Read(ref finished) < threads)
            {
                var now = (counter.Read(), doubleCounter.Read(), histogram.Read().Count, exponential.Read().Count, operation.Read().Count);
                if (now.Item1 < last.Counter || now.Item2 < last.Double || now.Item3 < last.Histogram || now.Item4 < last.Exponential || now.Item5 < last.Operation)
                {
                    wentDown++;
                }

                last = now;
                Interlocked.Increment(ref reads);
            }
        })
        { IsBackground = true };

        foreach (Thread writer in writers)
        {
            writer.Start();
        }

        scraper.Start();
        int cycles = 0;
        if (cycleCpus.Count > 0)
        {
            // A round of taking each processor offline and back, while the writers run.
            for (int round = 0; round < 1; round++)
            {
                foreach (int cpu in cycleCpus)
                {
                    Cpus.SetOnline(cpu, false);
                }

                Thread.Sleep(50);
                foreach (int cpu in cycleCpus)
                {
                    Cpus.SetOnline(cpu, true);
                }

                cycles++;
                Thread.Sleep(50);
            }
        }

        // The writers run on until the scraper has read a few times while they add.
        while (Volatile.Read(ref finished) < threads || Volatile.Read(ref reads) < MinimumReads)
        {
            Thread.Sleep(10);
        }

        Volatile.Write(ref stop, true);
        foreach (Thread writer in writers)
        {
            writer.Join();
        }

        scraper.Join();
        long rounds = done.Sum();
        long upDownExpected = done.Sum(r => (r / 2 * 2) + (r % 2 * 3));
        output.WriteLine($"{registry.WritePath} ({registry.SeriesStorage}, {registry.PromotedSeriesCount} promoted): {threads} writers, {rounds} rounds of 6 kinds in {clock.Elapsed.TotalSeconds:F1} s, {reads} scraper reads, {cycles} offline/online cycles of {(cycleCpus.Count == 0 ? "none" : Cpus.Format(cycleCpus))}, {RestartableSequence.RestartCount - restartsBefore} restarts, {OverflowRegionAdds.Count - overflowBefore} overflow-region adds");
        expect(wentDown == 0, $"{registry.WritePath}: no reading went down ({wentDown} did)");
        expect(counter.Read() == rounds, $"{registry.WritePath}: counter {counter.Read()} = {rounds}");
        expect(doubleCounter.Read() == rounds * 0.5, $"{registry.WritePath}: double counter {doubleCounter.Read()} = {rounds * 0.5}");
        expect(upDown.Read() == upDownExpected, $"{registry.WritePath}: up-down counter {upDown.Read()} = {upDownExpected}");
        HistogramReading h = histogram.Read();
        // Round i records i % 10 (buckets <= 2, <= 4, <= 8, above) and (i % 8) + 1: counted per residue.
        long[] buckets = new long[4];
        double histogramSum = 0, exponentialSum = 0;
        for (int residue = 0; residue < 10; residue++)
        {
            long times = done.Sum(r => (r / 10) + (r % 10 > residue ? 1 : 0));
            buckets[residue <= 2 ? 0 : residue <= 4 ? 1 : residue <= 8 ? 2 : 3] += times;
            histogramSum += (double)times * residue;
        }

        for (int residue = 0; residue < 8; residue++)
        {
            exponentialSum += (double)done.Sum(r => (r / 8) + (r % 8 > residue ? 1 : 0)) * (residue + 1);
        }

        expect(h.Count == rounds && h.BucketCounts.SequenceEqual(buckets) && h.Sum == histogramSum, $"{registry.WritePath}: histogram count {h.Count} = {rounds}, buckets [{string.Join(",", h.BucketCounts)}] = [{string.Join(",", buckets)}], sum {h.Sum} = {histogramSum}");
        ExponentialHistogramReading e = exponential.Read();
        expect(e.Count == rounds && e.Sum == exponentialSum && e.PositiveBucketCounts.Sum() + e.ZeroCount == rounds, $"{registry.WritePath}: exponential histogram count {e.Count} = {rounds}, sum {e.Sum} = {exponentialSum}, buckets sum to the count");
        OperationReading o = operation.Read();
        expect(o.Count == rounds && o.ElapsedTimestampTicks == rounds * 5, $"{registry.WritePath}: operation count {o.Count} = {rounds}, elapsed ticks {o.ElapsedTimestampTicks} = {rounds * 5}");
    }
}
