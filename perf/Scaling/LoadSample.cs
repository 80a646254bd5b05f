using System.Diagnostics;
using System.Globalization;

namespace ScalableMetrics.Scaling;

/// <summary>
/// The machine's busy and stolen processor time (Linux <c>/proc/stat</c>) and this process's own,
/// at one instant, so that a point can say how much of the machine other processes (or the
/// hypervisor) took while it ran: a figure taken on a busy machine is not comparable.
/// </summary>
internal readonly record struct LoadSample(double BusySeconds, double StealSeconds, double OwnSeconds, long Timestamp)
{
    // USER_HZ: /proc/stat counts in clock ticks of 1/100 s on every Linux architecture .NET runs on.
    private const double TicksPerSecond = 100;

    /// <summary>Takes a sample, or returns null where <c>/proc/stat</c> cannot be read.</summary>
    public static LoadSample? Take()
    {
        if (!OperatingSystem.IsLinux())
        {
            return null;
        }

        try
        {
            string line = File.ReadLines("/proc/stat").First();
            long[] fields = [.. line.Split(' ', StringSplitOptions.RemoveEmptyEntries).Skip(1).Select(f => long.Parse(f, CultureInfo.InvariantCulture))];

            // user nice system idle iowait irq softirq steal ...: busy is all but idle and iowait.
            long busy = fields[0] + fields[1] + fields[2] + fields[5] + fields[6];
            long steal = fields.Length > 7 ? fields[7] : 0;
            double own = Process.GetCurrentProcess().TotalProcessorTime.TotalSeconds;
            return new LoadSample(busy / TicksPerSecond, steal / TicksPerSecond, own, Stopwatch.GetTimestamp());
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException or FormatException or InvalidOperationException)
        {
            return null;
        }
    }

    /// <summary>The processors' worth of time that other processes used, and the hypervisor stole, between two samples.</summary>
    public static (double OtherCores, double StolenCores) Between(LoadSample before, LoadSample after)
    {
        double seconds = Stopwatch.GetElapsedTime(before.Timestamp, after.Timestamp).TotalSeconds;
        double other = (after.BusySeconds - before.BusySeconds) - (after.OwnSeconds - before.OwnSeconds);
        return (Math.Max(0, other) / seconds, (after.StealSeconds - before.StealSeconds) / seconds);
    }
}
