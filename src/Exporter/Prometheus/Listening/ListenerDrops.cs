using Microsoft.Extensions.Logging;

namespace ScalableMetrics.Exporter.Listening;

/// <summary>
/// The measurements the listener dropped because the registry would refuse them (a negative
/// counter increment, a NaN or infinite value, a tag set that breaks the registry's rules): counted,
/// and logged once per instrument, so that instrumented code never sees an exception of ours.
/// </summary>
/// <remarks>Thread-safe.</remarks>
internal sealed partial class ListenerDrops(ILogger logger)
{
    private long _count;

    /// <summary>The measurements dropped so far.</summary>
    public long Count => Volatile.Read(ref _count);

    public void Report(string instrument, string reason, Exception? exception, bool log)
    {
        Interlocked.Increment(ref _count);
        if (log)
        {
            LogDropped(logger, exception, instrument, reason);
        }
    }

    [LoggerMessage(EventId = 20, Level = LogLevel.Warning, Message = "A measurement of the instrument '{Instrument}' was dropped: {Reason}. Later ones of this instrument are dropped silently (counted).")]
    private static partial void LogDropped(ILogger logger, Exception? exception, string instrument, string reason);
}
