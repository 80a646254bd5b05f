using System.Diagnostics;
using System.Globalization;
using ScalableMetrics.Diagnostics;
using ScalableMetrics.Platform.Interop;

namespace ScalableMetrics.Scaling;

/// <summary>
/// The harness's <c>promotion</c> command: how long two threads writing one fresh series of an
/// adaptive registry (<see cref="SeriesStorage.Adaptive"/>) take to get it promoted to a copy per
/// partition, i.e. to the write path that scales.
/// </summary>
/// <remarks>
/// Each trial makes a registry and a counter series, releases two writer threads at once (the
/// same two for every trial of a write path, as a service's pool threads would be), and
/// takes the time from the moment both are writing (the later of their first increments) to the
/// first moment one of them sees the series promoted (each checks after every 64 increments); the
/// writers then stop, and the series' total is checked against the increments made. Reported: the
/// median, 90th percentile and largest time over the trials, how many trials saw no promotion
/// within the trial's time limit, and the median time from the release to both writing (the
/// scheduler's share, which the promotion time leaves out). On a machine whose cores are busy
/// elsewhere the two may take turns, and the figure says so: on Linux each writer reads its
/// thread's context switches (<c>voluntary_ctxt_switches</c> and <c>nonvoluntary_ctxt_switches</c>
/// in <c>/proc/thread-self/status</c>) before its first increment and after its last, and the same
/// figures are printed again for the trials in which the scheduler took neither writer off its
/// core (no involuntary switch) and no garbage collection ran, beside how many it did take one off
/// in; then the slowest trials, each with its writers' switches. A write rate is only shared while
/// both threads run: a writer taken off its core leaves the series uncontended until it is back.
/// A voluntary switch is a writer that blocked (on a lock, say): part of the promotion's cost,
/// never left out. A virtual machine's hypervisor can also take a processor away (steal time)
/// without the guest's scheduler switching anything: so each writer also reads its thread's time
/// on a processor (<c>CLOCK_THREAD_CPUTIME_ID</c>, which leaves steal out where the kernel
/// accounts for it, <c>CONFIG_PARAVIRT_TIME_ACCOUNTING</c>) beside the wall clock, and the
/// difference, for a writer with no context switch, is time the hypervisor took from it
/// ("stolen"); a trial in which either writer lost more than <see cref="StolenMicroseconds"/> so
/// is left out of the undisturbed figures too. Each write path the memory mode measures runs in
/// turn, after untimed trials that let the JIT settle.
/// </remarks>
internal static class PromotionCommand
{
    private const int IncrementsPerCheck = 64;
    private const int WarmUpTrials = 20;
    private const int SlowestShown = 3;

    // The wall time less the thread's processor time above which a writer with no context switch
    // counts as stolen from: well above the two clock reads' own difference (a few microseconds).
    private const double StolenMicroseconds = 20;

    public static int Run(int trials, double limitSeconds, TextWriter output)
    {
        output.WriteLine($"machine:   {MachineInfo.Current()}");
        output.WriteLine($"promotion: {trials} trials a write path; 2 threads increment one fresh counter series of an adaptive registry until it is promoted, timed from both writing (limit {limitSeconds} s a trial)");
        int exitCode = 0;
        foreach ((string name, MetricRegistryOptions template) in MemoryCommand.WritePaths)
        {
            exitCode = Math.Max(exitCode, RunTrials(name, template, trials, limitSeconds, output));
        }

        return exitCode;
    }

    private static int RunTrials(string name, MetricRegistryOptions template, int trials, double limitSeconds, TextWriter output)
    {
        var startMicroseconds = new List<double>();
        int unpromoted = 0;
        WritePath? writePath = null;
        var promoted = new List<PromotedTrial>();
        int collected = 0;
        bool switchesKnown = ThreadSwitches().Involuntary >= 0;
        bool processorTimeKnown = ThreadProcessorTime.IsSupported;

        // Two writer threads for all the trials of the write path, as a service's pool threads
        // would be: a fresh series each trial, not fresh threads (a new thread's stack is mapped
        // and, after it ends, unmapped, which blocks the other threads' page faults on the
        // process's memory map lock; and a new thread takes a per-thread index on its first add).
        Trial? current = null;
        using var barrier = new Barrier(3);
        Thread[] writers = [.. Enumerable.Range(0, 2).Select(t => new Thread(() =>
        {
            while (true)
            {
                barrier.SignalAndWait();
                if (Volatile.Read(ref current) is not { } trial)
                {
                    return;
                }

                trial.Write(t);
                barrier.SignalAndWait();
            }
        }))];
        foreach (Thread writer in writers)
        {
            writer.Start();
        }

        for (int trial = -WarmUpTrials; trial < trials; trial++)
        {
            var registry = new MetricRegistry(new MetricRegistryOptions { Strategy = template.Strategy, UseRestartableSequences = template.UseRestartableSequences, SeriesStorage = SeriesStorage.Adaptive });
            writePath = registry.WritePath;
            CounterSeries series = registry.CreateCounter("promotion.trial").Bind();
            int collections = GC.CollectionCount(0);
            long start = Stopwatch.GetTimestamp();
            var state = new Trial(series, start + (long)(limitSeconds * Stopwatch.Frequency));
            Volatile.Write(ref current, state);
            barrier.SignalAndWait();
            barrier.SignalAndWait();
            if (series.Read() != state.Increments.Sum())
            {
                throw new InvalidOperationException($"trial {trial}: read {series.Read()}, expected {state.Increments.Sum()}.");
            }

            if (trial < 0)
            {
                continue;
            }

            bool garbageCollected = GC.CollectionCount(0) != collections;
            if (garbageCollected)
            {
                collected++;
            }

            if (state.PromotedAt == 0)
            {
                unpromoted++;
                continue;
            }

            long bothWriting = Math.Max(state.FirstIncrementAt[0], state.FirstIncrementAt[1]);
            startMicroseconds.Add(Stopwatch.GetElapsedTime(start, bothWriting).TotalMicroseconds);
            double promotedIn = Math.Max(0, Stopwatch.GetElapsedTime(bothWriting, state.PromotedAt).TotalMicroseconds);
            promoted.Add(new PromotedTrial(promotedIn, state.Writers[0], state.Writers[1], garbageCollected));
        }

        Volatile.Write(ref current, null);
        barrier.SignalAndWait();
        foreach (Thread writer in writers)
        {
            writer.Join();
        }

        List<double> microseconds = [.. promoted.Select(t => t.Microseconds)];
        List<double> undisturbedMicroseconds = [.. promoted.Where(t => !t.Preempted && !t.Stolen && !t.Collected).Select(t => t.Microseconds)];
        int preempted = promoted.Count(t => t.Preempted);
        int stolen = promoted.Count(t => t.Stolen);
        startMicroseconds.Sort();
        output.WriteLine($"write path: {name} ({writePath})");
        output.WriteLine($"promoted in (us): {Quantiles(microseconds)}; not promoted within the limit: {unpromoted} of {trials}; from the release to both writing (us): median {(startMicroseconds.Count == 0 ? "-" : startMicroseconds[startMicroseconds.Count / 2].ToString("0.0", CultureInfo.InvariantCulture))}; trials with a garbage collection: {collected}");
        output.WriteLine(switchesKnown
            ? $"trials in which the scheduler took a writer off its core: {preempted} of {microseconds.Count}; in which the hypervisor took over {StolenMicroseconds} us from a writer that did not switch: {(processorTimeKnown ? stolen.ToString(CultureInfo.InvariantCulture) : "not known (no CLOCK_THREAD_CPUTIME_ID)")}; in the {undisturbedMicroseconds.Count} with none of these nor a garbage collection, promoted in (us): {Quantiles(undisturbedMicroseconds)}"
            : "involuntary context switches: not known on this OS (no /proc/thread-self/status)");
        foreach (var slow in promoted.OrderByDescending(t => t.Microseconds).Take(SlowestShown))
        {
            output.WriteLine(string.Create(CultureInfo.InvariantCulture, $"  slow trial: {slow.Microseconds:0.0} us; writers' context switches (voluntary/involuntary) {slow.First.Voluntary}/{slow.First.Involuntary} and {slow.Second.Voluntary}/{slow.Second.Involuntary}; off their processor (wall less processor time, us) {slow.First.OffProcessorMicroseconds:0.0} and {slow.Second.OffProcessorMicroseconds:0.0}; garbage collection: {(slow.Collected ? "yes" : "no")}"));
        }

        return unpromoted == 0 ? 0 : ScalingCommand.FailureExitCode;
    }

    // A promoted trial's time, its writers' and whether a garbage collection ran; preempted where
    // the scheduler took a writer off its core (an involuntary switch), stolen where the hypervisor
    // took time from a writer the scheduler left alone.
    private readonly record struct PromotedTrial(double Microseconds, WriterTimes First, WriterTimes Second, bool Collected)
    {
        public bool Preempted => First.Involuntary > 0 || Second.Involuntary > 0;

        public bool Stolen => First.Stolen || Second.Stolen;
    }

    // One writer's context switches over its part of a trial, and its wall time less its time on a
    // processor (NaN where the processor time is not known).
    private readonly record struct WriterTimes(long Voluntary, long Involuntary, double OffProcessorMicroseconds)
    {
        public bool Stolen => Voluntary == 0 && Involuntary == 0 && OffProcessorMicroseconds > StolenMicroseconds;
    }

    // One trial: a fresh series two writers increment until one of them sees it promoted.
    private sealed class Trial(CounterSeries series, long deadline)
    {
        private long _promotedAt;

        public long PromotedAt => Volatile.Read(ref _promotedAt);

        public long[] Increments { get; } = new long[2];

        public long[] FirstIncrementAt { get; } = new long[2];

        public WriterTimes[] Writers { get; } = new WriterTimes[2];

        // Writer t's part: each checks the route after every IncrementsPerCheck increments.
        public void Write(int t)
        {
            (long Voluntary, long Involuntary) switchesBefore = ThreadSwitches();
            long wallBefore = Stopwatch.GetTimestamp();
            double processorBefore = ThreadProcessorTime.Microseconds();
            series.Increment();
            Volatile.Write(ref FirstIncrementAt[t], Stopwatch.GetTimestamp());
            long count = 1;
            while (Volatile.Read(ref _promotedAt) == 0 && Stopwatch.GetTimestamp() < deadline)
            {
                for (int i = 0; i < IncrementsPerCheck; i++)
                {
                    series.Increment();
                }

                count += IncrementsPerCheck;
                if (!series.IsCompact)
                {
                    Interlocked.CompareExchange(ref _promotedAt, Stopwatch.GetTimestamp(), 0);
                }
            }

            double processorMicroseconds = ThreadProcessorTime.Microseconds() - processorBefore;
            double wallMicroseconds = Stopwatch.GetElapsedTime(wallBefore).TotalMicroseconds;
            (long voluntary, long involuntary) = ThreadSwitches();
            Writers[t] = new WriterTimes(voluntary - switchesBefore.Voluntary, involuntary - switchesBefore.Involuntary, wallMicroseconds - processorMicroseconds);
            Increments[t] = count;
        }
    }

    // The median, 90th percentile and largest of the times, in microseconds.
    private static string Quantiles(List<double> microseconds)
    {
        if (microseconds.Count == 0)
        {
            return "none";
        }

        microseconds.Sort();
        string At(int index) => microseconds[index].ToString("0.0", CultureInfo.InvariantCulture);
        return $"median {At(microseconds.Count / 2)}, p90 {At(Math.Min(microseconds.Count - 1, (int)(0.9 * microseconds.Count)))}, max {At(microseconds.Count - 1)}";
    }

    // The calling thread's voluntary and involuntary context switches so far (Linux), or -1 where not known.
    private static (long Voluntary, long Involuntary) ThreadSwitches()
    {
        long[] switches = ProcStatus.Read("/proc/thread-self/status", "voluntary_ctxt_switches", "nonvoluntary_ctxt_switches");
        return (switches[0], switches[1]);
    }

    // The calling thread's time on a processor (Linux: clock_gettime(CLOCK_THREAD_CPUTIME_ID)).
    private static unsafe class ThreadProcessorTime
    {
        public static bool IsSupported => OperatingSystem.IsLinux() && Libc.IsAvailable && !double.IsNaN(Microseconds());

        // The thread's processor time so far in microseconds, NaN where it cannot be read.
        public static double Microseconds()
        {
            if (!OperatingSystem.IsLinux() || !Libc.IsAvailable)
            {
                return double.NaN;
            }

            long* time = stackalloc long[2];
            return Libc.ClockGetTime(Libc.ClockThreadCpuTime, time) == 0 ? (time[0] * 1e6) + (time[1] / 1e3) : double.NaN;
        }
    }
}
