using System.Diagnostics;
using System.Runtime.CompilerServices;
using ScalableMetrics.Cells;

namespace ScalableMetrics;

/// <summary>
/// One series of an <see cref="OperationData"/>, bound to a fixed tag set: records operations
/// without a lookup and without allocating.
/// </summary>
/// <remarks>Thread-safe. Get one from <see cref="OperationData.Bind"/>, once, and keep it.</remarks>
public sealed class OperationSeries : PartitionedSeries
{
    /// <summary>The slots an operation series takes in each region: the count, then the elapsed ticks.</summary>
    internal const int SlotCount = 2;

    internal OperationSeries(TagSet tags, PartitionArena arena)
        : base(tags, arena, SlotCount)
    {
    }

    /// <summary>Starts timing one operation; disposing the returned scope records it.</summary>
    /// <returns>A scope to dispose exactly once, when the operation ends.</returns>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public OperationScope Start() => new(this, Stopwatch.GetTimestamp());

    /// <summary>Records one operation that took <paramref name="elapsed"/>.</summary>
    /// <param name="elapsed">The operation's duration, from zero to <see cref="OperationData.MaxElapsed"/>.</param>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="elapsed"/> is negative or longer than <see cref="OperationData.MaxElapsed"/>; nothing is recorded.</exception>
    public void Record(TimeSpan elapsed)
    {
        if (elapsed < TimeSpan.Zero || elapsed > OperationData.MaxElapsed)
        {
            ThrowHelper.ThrowElapsedOutOfRange(nameof(elapsed), elapsed, elapsed < TimeSpan.Zero);
        }

        // TimeSpan ticks are 100 ns; Stopwatch ticks are 1 / Stopwatch.Frequency seconds.
        AddPair(1, (long)(elapsed.Ticks * ((double)Stopwatch.Frequency / TimeSpan.TicksPerSecond)));
    }

    /// <summary>Records one operation that took <paramref name="elapsedTimestampTicks"/> <see cref="Stopwatch"/> ticks.</summary>
    /// <param name="elapsedTimestampTicks">The difference of two <see cref="Stopwatch.GetTimestamp"/> readings, from zero to <see cref="OperationData.MaxElapsed"/>.</param>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="elapsedTimestampTicks"/> is negative or longer than <see cref="OperationData.MaxElapsed"/>; nothing is recorded.</exception>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public void RecordElapsedTicks(long elapsedTimestampTicks)
    {
        // One unsigned comparison refuses both negative and too long values.
        if ((ulong)elapsedTimestampTicks > (ulong)OperationData.MaxElapsedTimestampTicks)
        {
            ThrowHelper.ThrowElapsedOutOfRange(nameof(elapsedTimestampTicks), elapsedTimestampTicks, elapsedTimestampTicks < 0);
        }

        AddPair(1, elapsedTimestampTicks);
    }

    /// <summary>Records one operation of <paramref name="elapsedTimestampTicks"/>, known to be zero or positive.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    internal void RecordValidElapsedTicks(long elapsedTimestampTicks) => AddPair(1, elapsedTimestampTicks);

    /// <summary>Reads every series in <paramref name="series"/> (all of <paramref name="arena"/>) into <paramref name="slots"/>: series i's count at 2i, its ticks at 2i + 1.</summary>
    internal static void ReadAll(PartitionArena arena, OperationSeries[] series, Span<long> slots) => ReadAll(arena, series, SlotCount, slots);

    /// <summary>Sums the series' partitions: operations and elapsed time since it was created.</summary>
    /// <returns>The cumulative reading.</returns>
    public OperationReading Read()
    {
        (long count, long ticks) = ReadPair();
        return new OperationReading(Tags, count, ticks);
    }
}
