using ScalableMetrics.Cells;

namespace ScalableMetrics.Instruments;

/// <summary>
/// Arrays a reader keeps from one read of an instrument's series to the next
/// (<see cref="PartitionedCounter.ReadInto"/>, <see cref="PartitionedHistogram.ReadInto"/>,
/// <see cref="PartitionedExponentialHistogram.ReadInto"/>, <see cref="PartitionedDoubleCounter.ReadInto"/>,
/// <see cref="PartitionedUpDownCounter.ReadInto"/>, <see cref="PartitionedDoubleUpDownCounter.ReadInto"/>): the
/// series' totals, sums and exemplars, read in one pass over the arena as <c>Collect()</c> reads
/// them, into arrays that grow to the largest instrument read and are then reused, so that a
/// steady reader (a scrape every few seconds) allocates nothing per series and nothing per read.
/// </summary>
/// <remarks>What a read wrote stays valid until the next read into the same scratch. Not
/// thread-safe: one reader (the Prometheus scrape, which runs one collection at a time).</remarks>
internal sealed class SeriesReadScratch
{
    private SlotRange[] _ranges = [];
    private long[] _totals = [];
    private double[] _doubles = [];
    private Exemplar?[] _exemplars = [];
    private long[] _point = [];

    /// <summary>The totals of the last read: per series its slots (one for a counter or an up-down counter; a histogram's bucket counts), series i's at i × slots per series.</summary>
    public ReadOnlySpan<long> Totals => _totals;

    /// <summary>The <see cref="double"/> of each series of the last read: a histogram's sum, or a double counter's or up-down counter's value.</summary>
    public ReadOnlySpan<double> Doubles => _doubles;

    /// <summary>The newest exemplar of each series of the last read, or null: valid only where the read said it read exemplars.</summary>
    public ReadOnlySpan<Exemplar?> Exemplars => _exemplars;

    /// <summary><paramref name="count"/> exemplars of the last read from <paramref name="start"/>, for a writer that takes a list (the array itself, not a copy).</summary>
    internal ArraySegment<Exemplar?> ExemplarsAt(int start, int count) => new(_exemplars, start, count);

    /// <summary>Room for <paramref name="count"/> slot ranges.</summary>
    internal SlotRange[] Ranges(int count) => Grow(ref _ranges, count);

    /// <summary>Room for <paramref name="count"/> totals, to write.</summary>
    internal long[] TotalsFor(int count) => Grow(ref _totals, count);

    /// <summary>Room for <paramref name="count"/> doubles, to write.</summary>
    internal double[] DoublesFor(int count) => Grow(ref _doubles, count);

    /// <summary>Room for <paramref name="count"/> exemplars, to write.</summary>
    internal Exemplar?[] ExemplarsFor(int count) => Grow(ref _exemplars, count);

    /// <summary>Room for <paramref name="count"/> longs of one series' point (an exponential histogram's merged buckets), apart from the totals it is made from.</summary>
    internal Span<long> PointFor(int count) => Grow(ref _point, count).AsSpan(0, count);

    // At least the count, grown by half again so that an instrument that keeps adding series does not regrow on every read.
    private static T[] Grow<T>(ref T[] array, int count)
    {
        if (array.Length < count)
        {
            array = new T[Math.Max(count, array.Length + (array.Length / 2))];
        }

        return array;
    }
}
