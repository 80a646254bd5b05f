namespace ScalableMetrics.Exporter.Tests.OpenTelemetry.Otlp.Transport;

/// <summary>A clock that moves only when the test moves it (<see cref="Advance"/>): its timestamps,
/// and its timers (a <see cref="CancellationTokenSource"/>'s timeout among them), which fire on the
/// thread that moves it past their due time. Thread-safe.</summary>
internal sealed class ManualClock : TimeProvider
{
    private readonly List<Timer> _timers = [];
    private long _ticks;

    /// <summary>The time moved since the clock was made.</summary>
    public TimeSpan Elapsed => TimeSpan.FromTicks(GetTimestamp());

    public override long TimestampFrequency => TimeSpan.TicksPerSecond;

    public override long GetTimestamp()
    {
        lock (_timers)
        {
            return _ticks;
        }
    }

    public override ITimer CreateTimer(TimerCallback callback, object? state, TimeSpan dueTime, TimeSpan period)
    {
        var timer = new Timer(this, callback, state);
        timer.Change(dueTime, period);
        return timer;
    }

    /// <summary>Moves the clock by <paramref name="by"/>, firing each timer that falls due.</summary>
    public void Advance(TimeSpan by)
    {
        List<Timer> due = [];
        lock (_timers)
        {
            _ticks += by.Ticks;
            foreach (Timer timer in _timers.Where(t => t.Due <= _ticks).ToList())
            {
                due.Add(timer);
                if (timer.Period <= 0)
                {
                    _timers.Remove(timer);
                }
                else
                {
                    timer.Due = _ticks + timer.Period;
                }
            }
        }

        foreach (Timer timer in due)
        {
            timer.Fire();
        }
    }

    private sealed class Timer(ManualClock clock, TimerCallback callback, object? state) : ITimer
    {
        public long Due { get; set; }

        public long Period { get; set; }

        public void Fire() => callback(state);

        public bool Change(TimeSpan dueTime, TimeSpan period)
        {
            lock (clock._timers)
            {
                clock._timers.Remove(this);
                if (dueTime == Timeout.InfiniteTimeSpan)
                {
                    return true;
                }

                Due = clock._ticks + dueTime.Ticks;
                Period = period == Timeout.InfiniteTimeSpan ? 0 : period.Ticks;
                clock._timers.Add(this);
            }

            return true;
        }

        public void Dispose() => Change(Timeout.InfiniteTimeSpan, Timeout.InfiniteTimeSpan);

        public ValueTask DisposeAsync()
        {
            Dispose();
            return ValueTask.CompletedTask;
        }
    }
}
