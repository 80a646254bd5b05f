using System.Runtime.CompilerServices;
using ScalableMetrics.Platform;

namespace ScalableMetrics;

/// <summary>
/// One series of a <see cref="PartitionedCounter"/>, bound to a fixed tag set: the handle for
/// the hot path, where an add allocates nothing and is, by the registry's storage, a plain add
/// to the current processor's padded cell inside a restartable sequence (no atomic
/// instruction; see <see cref="RestartableSequence"/>), a cached processor-id read and one atomic
/// add to that processor's cell, or a plain store to the thread's own cell.
/// </summary>
/// <remarks>Thread-safe. Get one from <see cref="PartitionedCounter.Bind"/>, once, and keep it.</remarks>
public sealed class CounterSeries : PartitionedSeries
{
    internal CounterSeries(TagSet tags, SeriesStorage storage)
        : base(tags, storage)
    {
    }

    /// <summary>Adds <paramref name="value"/>.</summary>
    /// <param name="value">The increment, zero or positive.</param>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="value"/> is negative; nothing is recorded.</exception>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public void Add(long value)
    {
        if (value < 0)
        {
            ThrowHelper.ThrowNegativeIncrement(nameof(value), value);
        }

        AddSum(value);
    }

    /// <summary>Adds <paramref name="value"/>, known to be zero or positive.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    internal void AddValid(long value) => AddSum(value);

    /// <summary>Adds 1.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public void Increment() => AddSum(1);

    /// <summary>Sums the series' partitions: the total added since it was created.</summary>
    /// <returns>The cumulative value; never lower than a value an earlier call returned.</returns>
    public long Read() => ReadPartitions().Sum;
}
