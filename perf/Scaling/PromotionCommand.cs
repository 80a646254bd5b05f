using System.Diagnostics;
using System.Globalization;
using ScalableMetrics.Diagnostics;

namespace ScalableMetrics.Scaling;

/// <summary>
/// The harness's <c>promotion</c> command: how long two threads writing one fresh series of an
/// adaptive registry (<see cref="SeriesStorage.Adaptive"/>) take to get it promoted to a copy per
/// partition, i.e. to the write path that scales.
/// </summary>
/// <remarks>
/// Each trial makes a registry and a counter series, releases two writer threads at once, and
/// takes the time from the moment both are writing (the later of their first increments) to the
/// first moment one of them sees the series promoted (each checks after every 64 increments); the
/// writers then stop, and the series' total is checked against the increments made. Reported: the
/// median, 90th percentile and largest time over the trials, how many trials saw no promotion
/// within the trial's time limit, and the median time from the release to both writing (the
/// scheduler's share, which the promotion time leaves out). On a machine whose cores are busy
/// elsewhere the two may take turns, and the figure says so.
/// </remarks>
internal static class PromotionCommand
{
    private const int IncrementsPerCheck = 64;

    public static int Run(int trials, double limitSeconds, TextWriter output)
    {
        output.WriteLine($"machine:   {MachineInfo.Current()}");
        output.WriteLine($"promotion: {trials} trials; 2 threads increment one fresh counter series of an adaptive registry until it is promoted, timed from both writing (limit {limitSeconds} s a trial)");
        var microseconds = new List<double>();
        var startMicroseconds = new List<double>();
        int unpromoted = 0;
        WritePath? writePath = null;
        for (int trial = 0; trial < trials; trial++)
        {
            var registry = new MetricRegistry(new MetricRegistryOptions { SeriesStorage = SeriesStorage.Adaptive });
            writePath = registry.WritePath;
            CounterSeries series = registry.CreateCounter("promotion.trial").Bind();
            using var gate = new ManualResetEventSlim(false);
            long promotedAt = 0;
            long[] increments = new long[2];
            long[] firstIncrementAt = new long[2];
            long start = 0;
            long deadline = 0;
            Thread[] writers = [.. Enumerable.Range(0, 2).Select(t => new Thread(() =>
            {
                gate.Wait();
                series.Increment();
                Volatile.Write(ref firstIncrementAt[t], Stopwatch.GetTimestamp());
                long count = 1;
                while (Volatile.Read(ref promotedAt) == 0 && Stopwatch.GetTimestamp() < Volatile.Read(ref deadline))
                {
                    for (int i = 0; i < IncrementsPerCheck; i++)
                    {
                        series.Increment();
                    }

                    count += IncrementsPerCheck;
                    if (!series.IsCompact)
                    {
                        Interlocked.CompareExchange(ref promotedAt, Stopwatch.GetTimestamp(), 0);
                    }
                }

                increments[t] = count;
            }))];
            foreach (Thread writer in writers)
            {
                writer.Start();
            }

            start = Stopwatch.GetTimestamp();
            Volatile.Write(ref deadline, start + (long)(limitSeconds * Stopwatch.Frequency));
            gate.Set();
            foreach (Thread writer in writers)
            {
                writer.Join();
            }

            if (series.Read() != increments.Sum())
            {
                throw new InvalidOperationException($"trial {trial}: read {series.Read()}, expected {increments.Sum()}.");
            }

            if (promotedAt == 0)
            {
                unpromoted++;
                continue;
            }

            long bothWriting = Math.Max(firstIncrementAt[0], firstIncrementAt[1]);
            startMicroseconds.Add(Stopwatch.GetElapsedTime(start, bothWriting).TotalMicroseconds);
            microseconds.Add(Math.Max(0, Stopwatch.GetElapsedTime(bothWriting, promotedAt).TotalMicroseconds));
        }

        microseconds.Sort();
        startMicroseconds.Sort();
        string Quantile(double q) => microseconds.Count == 0 ? "-" : microseconds[Math.Min(microseconds.Count - 1, (int)(q * microseconds.Count))].ToString("0.0", CultureInfo.InvariantCulture);
        output.WriteLine($"write path: {writePath}");
        output.WriteLine($"promoted in (us): median {Quantile(0.5)}, p90 {Quantile(0.9)}, max {(microseconds.Count == 0 ? "-" : microseconds[^1].ToString("0.0", CultureInfo.InvariantCulture))}; not promoted within the limit: {unpromoted} of {trials}; from the release to both writing (us): median {(startMicroseconds.Count == 0 ? "-" : startMicroseconds[startMicroseconds.Count / 2].ToString("0.0", CultureInfo.InvariantCulture))}");
        return unpromoted == 0 ? 0 : ScalingCommand.FailureExitCode;
    }
}
