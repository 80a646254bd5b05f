namespace ScalableMetrics.Exporter.Tests;

/// <summary>The system's clock, whose timers fire at once: waits (<c>Task.Delay(wait, time, token)</c>,
/// backoff between retries) end immediately, so a test drives them without waiting wall time.
/// The due times asked for are kept, to assert on.</summary>
internal sealed class ImmediateTimeProvider : TimeProvider
{
    private readonly List<TimeSpan> _waits = [];

    public List<TimeSpan> Waits
    {
        get
        {
            lock (_waits)
            {
                return [.. _waits];
            }
        }
    }

    public override ITimer CreateTimer(TimerCallback callback, object? state, TimeSpan dueTime, TimeSpan period)
    {
        lock (_waits)
        {
            _waits.Add(dueTime);
        }

        return System.CreateTimer(callback, state, dueTime == Timeout.InfiniteTimeSpan ? dueTime : TimeSpan.Zero, period);
    }
}
