using System.Diagnostics;

namespace ScalableMetrics;

/// <summary>An operation series' cumulative count and elapsed time, as collected.</summary>
/// <param name="Tags">The tags that name the series.</param>
/// <param name="Count">Operations recorded since the series was created.</param>
/// <param name="ElapsedTimestampTicks">Their total elapsed time in <see cref="Stopwatch"/> ticks (<see cref="Stopwatch.Frequency"/> per second).</param>
public readonly record struct OperationReading(TagSet Tags, long Count, long ElapsedTimestampTicks)
{
    /// <summary>The total elapsed time in seconds.</summary>
    public double ElapsedSeconds => (double)ElapsedTimestampTicks / Stopwatch.Frequency;
}
