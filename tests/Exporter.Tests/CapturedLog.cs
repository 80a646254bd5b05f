using Microsoft.Extensions.Logging;

namespace ScalableMetrics.Exporter.Tests;

/// <summary>A logger provider that keeps every entry of every category, at every level, for tests
/// that assert what a host logged as a whole (the HTTP client factory's categories included).</summary>
internal sealed class CapturedLog : ILoggerProvider
{
    private readonly List<Entry> _entries = [];

    public List<Entry> Entries
    {
        get
        {
            lock (_entries)
            {
                return [.. _entries];
            }
        }
    }

    /// <summary>The entries at Information or above, from the <paramref name="start"/>th on.</summary>
    public List<Entry> AtInformationOrAbove(int start = 0) => [.. Entries.Skip(start).Where(static e => e.Level >= LogLevel.Information)];

    public ILogger CreateLogger(string categoryName) => new Logger(this, categoryName);

    public void Dispose()
    {
    }

    /// <summary>One entry: its category, level, event, formatted message and exception.</summary>
    internal sealed record Entry(string Category, LogLevel Level, EventId EventId, string Message, Exception? Exception)
    {
        /// <summary>Whether the entry carries a stack trace, as an exception or in its text.</summary>
        public bool HasStackTrace => Exception is not null || Message.Contains("   at ", StringComparison.Ordinal);
    }

    private sealed class Logger(CapturedLog log, string category) : ILogger
    {
        public IDisposable? BeginScope<TState>(TState state)
            where TState : notnull => null;

        public bool IsEnabled(LogLevel logLevel) => true;

        public void Log<TState>(LogLevel logLevel, EventId eventId, TState state, Exception? exception, Func<TState, Exception?, string> formatter)
        {
            lock (log._entries)
            {
                log._entries.Add(new Entry(category, logLevel, eventId, formatter(state, exception), exception));
            }
        }
    }
}
