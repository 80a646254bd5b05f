using System.Runtime.CompilerServices;

namespace ScalableMetrics;

/// <summary>
/// One series of a <see cref="PartitionedCounter"/>, bound to a fixed tag set: the handle for
/// the hot path, where an add is a cached processor-id read and one atomic add to that
/// processor's padded cell (or a plain store to the thread's own cell), and allocates nothing.
/// </summary>
/// <remarks>Thread-safe. Get one from <see cref="PartitionedCounter.Bind"/>, once, and keep it.</remarks>
public sealed class CounterSeries
{
    internal CounterSeries(TagSet tags, PartitionStrategy strategy)
    {
        Tags = tags;
        Values = new PartitionedValues(strategy);
    }

    /// <summary>The tags that name this series.</summary>
    public TagSet Tags { get; }

    internal PartitionedValues Values { get; }

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

        Values.AddSum(value);
    }

    /// <summary>Adds 1.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public void Increment() => Values.AddSum(1);

    /// <summary>Sums the series' partitions: the total added since it was created.</summary>
    /// <returns>The cumulative value; never lower than a value an earlier call returned.</returns>
    public long Read() => Values.Read().Sum;
}
