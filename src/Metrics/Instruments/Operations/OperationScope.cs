using System.Diagnostics;

namespace ScalableMetrics;

/// <summary>
/// Times one operation, from <see cref="OperationSeries.Start"/> to <see cref="Dispose"/>; a
/// struct, so a <c>using</c> block allocates nothing and the scope may cross an <c>await</c>.
/// </summary>
/// <remarks>Dispose it exactly once: a struct cannot tell its copies apart, so disposing twice records twice. The <see langword="default"/> scope records nothing.</remarks>
public readonly struct OperationScope : IDisposable
{
    private readonly OperationSeries? _series;
    private readonly long _startTimestamp;

    internal OperationScope(OperationSeries series, long startTimestamp)
    {
        _series = series;
        _startTimestamp = startTimestamp;
    }

    /// <summary>Records the operation: one count, and the <see cref="Stopwatch"/> ticks since the scope started.</summary>
    public void Dispose()
    {
        if (_series is { } series)
        {
            // The timestamp is monotonic, so the difference is never negative.
            series.RecordValidElapsedTicks(Stopwatch.GetTimestamp() - _startTimestamp);
        }
    }
}
