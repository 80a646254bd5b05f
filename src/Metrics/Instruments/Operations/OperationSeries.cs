using System.Diagnostics;
using System.Runtime.CompilerServices;
using ScalableMetrics.Cells;
using ScalableMetrics.Instruments.Operations;
using ScalableMetrics.Snapshots;

namespace ScalableMetrics;

/// <summary>
/// One series of an <see cref="OperationData"/>, bound to a fixed tag set: records operations
/// without a lookup and without allocating.
/// </summary>
/// <remarks>
/// <para>Thread-safe. Get one from <see cref="SeriesInstrument{TSeries}.Bind">OperationData.Bind</see>, once, and keep it.</para>
/// <para>Its slots in each region: without bucket boundaries, the count, then the elapsed ticks; with
/// them, one count per bucket (boundaries + 1), then the elapsed ticks, and the count is their sum.</para>
/// </remarks>
public sealed class OperationSeries : PartitionedSeries
{
    /// <summary>The slots an operation series without buckets takes in each region: the count, then the elapsed ticks.</summary>
    internal const int SlotCount = 2;

    // Null without bucket boundaries: then the series records its count and ticks in slots 0 and 1, as it always has.
    private readonly TimestampBuckets? _buckets;

    internal OperationSeries(TagSet tags, PartitionArena arena, TimestampBuckets? buckets)
        : base(tags, arena, SlotCountFor(buckets))
    {
        _buckets = buckets;
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
        RecordValidElapsedTicks((long)(elapsed.Ticks * ((double)Stopwatch.Frequency / TimeSpan.TicksPerSecond)));
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

        RecordValidElapsedTicks(elapsedTimestampTicks);
    }

    /// <summary>Records one operation of <paramref name="elapsedTimestampTicks"/>, known to be zero or positive.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    internal void RecordValidElapsedTicks(long elapsedTimestampTicks)
    {
        if (_buckets is { } buckets)
        {
            RecordInBucket(buckets, elapsedTimestampTicks);
            return;
        }

        AddCountAndValue<SaturatingCell, long>(0, 1, elapsedTimestampTicks);
    }

    // Out of line, so that the plain path, inlined into every scope's Dispose, stays as small as it was.
    private void RecordInBucket(TimestampBuckets buckets, long elapsedTimestampTicks) =>
        AddCountAndValue<SaturatingCell, long>(buckets.Find(elapsedTimestampTicks), buckets.BucketCount, elapsedTimestampTicks); // the bucket's count; the ticks after the bucket counts

    /// <summary>The slots a series takes in each region: <see cref="SlotCount"/> without buckets; a count per bucket and the ticks with them.</summary>
    internal static int SlotCountFor(TimestampBuckets? buckets) => buckets is null ? SlotCount : buckets.BucketCount + 1;

    /// <inheritdoc/>
    /// <remarks>The count, or each bucket's; the ticks slot after them sums the elapsed time.</remarks>
    private protected override int RecordCountSlots => _buckets?.BucketCount ?? 1;

    /// <summary>Reads every series in <paramref name="series"/> (all of <paramref name="arena"/>, all with <paramref name="slotsPerSeries"/> slots) into <paramref name="snapshot"/>'s longs, in one pass over the arena; <paramref name="collection"/>: a collection of the instrument (see <see cref="PartitionedSeries.ReadAll{TSeries}"/>).</summary>
    internal static void ReadAllInto(PartitionArena arena, ReadOnlySpan<OperationSeries> series, int slotsPerSeries, InstrumentSnapshot snapshot, bool collection) =>
        ReadAll(arena, series, snapshot.Ranges(series.Length), slotsPerSeries, doubleSlot: -1, snapshot.Longs(), default, collection: collection);

    /// <summary>Sums the series' partitions: operations and elapsed time since it was created.</summary>
    /// <returns>The cumulative reading; with bucket boundaries, its <see cref="OperationReading.BucketCounts"/> too.</returns>
    public OperationReading Read()
    {
        if (_buckets is not { } buckets)
        {
            (long count, long ticks) = ReadPair();
            return new OperationReading(Tags, count, ticks);
        }

        int slotCount = buckets.BucketCount + 1;
        long[] slots = new long[slotCount];
        ReadAll(Slots.Chunk.Arena, [this], new SlotRange[1], slotCount, doubleSlot: -1, slots, default, collection: false);
        return OperationReading.FromBuckets(Tags, slots.AsSpan(0, buckets.BucketCount).ToArray(), slots[buckets.BucketCount]);
    }
}
