using Microsoft.Extensions.Logging;

namespace ScalableMetrics.Exporter.Tests;

/// <summary>A logger that keeps every message (and its exception), for tests that assert what was logged.</summary>
internal sealed class ListLogger : ILogger<PrometheusScraper>
{
    private readonly List<(string Message, Exception? Exception)> _entries = [];
    private readonly List<(EventId EventId, LogLevel Level, string Message)> _events = [];

    public List<(EventId EventId, LogLevel Level, string Message)> Events
    {
        get
        {
            lock (_entries)
            {
                return [.. _events];
            }
        }
    }

    public List<string> Messages
    {
        get
        {
            lock (_entries)
            {
                return [.. _entries.Select(e => e.Message)];
            }
        }
    }

    public List<(string Message, Exception? Exception)> Entries
    {
        get
        {
            lock (_entries)
            {
                return [.. _entries];
            }
        }
    }

    public IDisposable? BeginScope<TState>(TState state)
        where TState : notnull => null;

    public bool IsEnabled(LogLevel logLevel) => true;

    public void Log<TState>(LogLevel logLevel, EventId eventId, TState state, Exception? exception, Func<TState, Exception?, string> formatter)
    {
        lock (_entries)
        {
            _entries.Add((formatter(state, exception), exception));
            _events.Add((eventId, logLevel, formatter(state, exception)));
        }
    }
}
