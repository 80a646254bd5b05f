using ScalableMetrics.Instruments.Histograms;
using System.Diagnostics.Metrics;

namespace ScalableMetrics.Exporter.OpenTelemetry;

/// <summary>
/// What <see cref="MeterBridge"/> reports for an <see cref="OperationData"/> <c>x</c>'s two
/// observable counters, <c>x</c> (total seconds) and <c>x.count</c>: one read of the operation
/// (one collection of it) for both, continued across removals as a counter's
/// (<see cref="CounterTotals{T}"/>).
/// </summary>
/// <remarks>
/// <para>Read apart, each callback made a collection of the operation of its own: the first removed
/// a series marked for removal, so the second never had its last export (what was recorded since
/// the bridge's read before was lost to it), and idle expiry counted two collections for one. So
/// the callback a thread runs first reads the operation and keeps the other's measurements of
/// that read, which the other takes where it is the next of the two to run, on the same thread (a
/// listener runs the callbacks one after the other, on the thread that collects). Where one of the
/// two ran in between on another thread (another listener's collection), or the first is not run
/// (a view dropped its instrument), the other reads the operation itself.</para>
/// <para>Thread-safe.</para>
/// </remarks>
internal sealed class OperationTotals
{
    private readonly CounterTotals<Totals> _totals;
    private readonly Lock _lock = new();

    // The measurements of the last read that the callback which did not make it has yet to
    // report, and the thread that made it; at most one of the two at a time, under _lock.
    private Measurement<double>[]? _pendingSeconds;
    private Measurement<long>[]? _pendingCounts;
    private int _pendingThread;

    /// <summary>Reports <paramref name="operation"/>'s count and total time.</summary>
    /// <param name="operation">The operation.</param>
    public OperationTotals(OperationData operation) =>
        _totals = new CounterTotals<Totals>(operation, static (snapshot, i) => new Totals(snapshot.OperationCountAt(i), snapshot.ElapsedSecondsAt(i)), Totals.Add);

    /// <summary>What <c>x</c> reports: each series' total elapsed seconds.</summary>
    /// <returns>One measurement per series.</returns>
    public Measurement<double>[] MeasureSeconds()
    {
        lock (_lock)
        {
            return Take(ref _pendingSeconds) ?? ReadKeepingTheOther(keepCounts: true).Seconds;
        }
    }

    /// <summary>What <c>x.count</c> reports: each series' count of operations.</summary>
    /// <returns>One measurement per series.</returns>
    public Measurement<long>[] MeasureCounts()
    {
        lock (_lock)
        {
            return Take(ref _pendingCounts) ?? ReadKeepingTheOther(keepCounts: false).Counts;
        }
    }

    // Under _lock: the pending measurements, where this thread's read left them, taken; else null, and none left pending.
    private TMeasurement[]? Take<TMeasurement>(ref TMeasurement[]? pending)
    {
        TMeasurement[]? taken = _pendingThread == Environment.CurrentManagedThreadId ? pending : null;
        pending = null;
        _pendingSeconds = null;
        _pendingCounts = null;
        return taken;
    }

    // Under _lock: one read of the operation, the measurements of the instrument that did not ask
    // kept for it (see Take), the counts or the seconds.
    private (Measurement<double>[] Seconds, Measurement<long>[] Counts) ReadKeepingTheOther(bool keepCounts)
    {
        Read(out Measurement<double>[] seconds, out Measurement<long>[] counts);
        if (keepCounts)
        {
            _pendingCounts = counts;
        }
        else
        {
            _pendingSeconds = seconds;
        }

        return (seconds, counts);
    }

    // Under _lock: one read of the operation, as both instruments' measurements.
    private void Read(out Measurement<double>[] seconds, out Measurement<long>[] counts)
    {
        (Totals Totals, TagSet Tags)[] read = _totals.Read(static (totals, tags) => (totals, tags));
        seconds = new Measurement<double>[read.Length];
        counts = new Measurement<long>[read.Length];
        for (int i = 0; i < read.Length; i++)
        {
            ReadOnlySpan<KeyValuePair<string, object?>> tags = read[i].Tags.AsSpan();
            seconds[i] = new Measurement<double>(read[i].Totals.Seconds, tags);
            counts[i] = new Measurement<long>(read[i].Totals.Count, tags);
        }

        _pendingThread = Environment.CurrentManagedThreadId;
    }

    // A series' totals: its count of operations and their elapsed seconds.
    private readonly record struct Totals(long Count, double Seconds)
    {
        public static Totals Add(Totals a, Totals b) => new(SaturatingCounts.Add(a.Count, b.Count), CounterSums.Add(a.Seconds, b.Seconds));
    }
}
