using System.Diagnostics;
using ScalableMetrics.Cells;
using ScalableMetrics.Instruments;
using ScalableMetrics.Instruments.Histograms;
using ScalableMetrics.Instruments.Operations;
using ScalableMetrics.Naming;
using ScalableMetrics.Snapshots;
using ScalableMetrics.Tags;

namespace ScalableMetrics;

/// <summary>
/// The count and total elapsed time of an operation, partitioned like a
/// <see cref="PartitionedCounter"/>: the <c>OperationData</c> of Thomas Kejser, &quot;Synchronisation in .NET, Part 4: Partitioned Data Structures&quot;, kept per
/// processor and summed when read. Time is kept in <see cref="Stopwatch"/> ticks and reported in
/// seconds.
/// </summary>
/// <remarks>
/// <para>Create one with <see cref="MetricRegistry.CreateOperationData"/>. All members are thread-safe.</para>
/// <para>Time one operation with <c>using (operation.Start()) { ... }</c>, which allocates nothing;
/// for the hot path, <see cref="SeriesInstrument{TSeries}.Bind">Bind</see> the tags once and start scopes on the returned
/// <see cref="OperationSeries"/>.</para>
/// <para>With bucket boundaries (in seconds, see <see cref="MetricRegistry.CreateOperationData"/>) it
/// is a latency histogram: each record also counts in the bucket of its elapsed time, the
/// boundaries converted once to <see cref="Stopwatch"/> ticks so that a record compares integers, and
/// it is exported as a Prometheus histogram <c>x_seconds</c>; without, as a summary (count and sum).</para>
/// </remarks>
public sealed class OperationData : SeriesInstrument<OperationSeries>
{
    /// <summary>The unit of the elapsed time reported: seconds.</summary>
    public const string ElapsedUnit = "s";

    /// <summary>
    /// What the name an operation's count is published under adds to the operation's name, where
    /// each number of a series is an instrument of its own (an OpenTelemetry meter, through the
    /// exporter's <c>MeterBridge</c>): <c>webapi.request.duration.count</c>. The registry reserves
    /// that name, so that no other instrument can take it.
    /// </summary>
    public const string CountNameSuffix = PublishedInstrument.CountSuffix;

    /// <summary>
    /// The longest elapsed time one record takes: one day. <see cref="Record"/>,
    /// <see cref="OperationSeries.Record"/> and <see cref="OperationSeries.RecordElapsedTicks"/>
    /// refuse longer ones with <see cref="ArgumentOutOfRangeException"/>.
    /// </summary>
    /// <remarks>
    /// A caller's elapsed time beyond a day is almost surely a bad timestamp or a sentinel such as
    /// <see cref="TimeSpan.MaxValue"/>, whose conversion to <see cref="Stopwatch"/> ticks overflows
    /// and would make the total time negative for good. With one day, a series' sum in
    /// nanosecond ticks (Linux' <see cref="Stopwatch.Frequency"/>) takes 106,751 maximal records
    /// to reach <see cref="long.MaxValue"/>. A scope (<see cref="Start"/>) records the time it
    /// measured, whatever its length.
    /// </remarks>
    public static TimeSpan MaxElapsed { get; } = TimeSpan.FromDays(1);

    /// <summary><see cref="MaxElapsed"/> in <see cref="Stopwatch"/> ticks.</summary>
    internal static long MaxElapsedTimestampTicks { get; } = (long)(TimeSpan.FromDays(1).Ticks * ((double)Stopwatch.Frequency / TimeSpan.TicksPerSecond));

    internal OperationData(string name, string? description, HistogramBuckets? buckets, PartitionArena arena, int maxSeries, TagLimits tagLimits)
        : base(name, ElapsedUnit, description, arena, maxSeries, tagLimits, SeriesFactory(arena, buckets?.ToTimestampBuckets()))
    {
        Buckets = buckets;
    }

    /// <summary>The bucket boundaries in seconds, strictly increasing and finite, or <see langword="null"/> for an operation without buckets.</summary>
    public IReadOnlyList<double>? Boundaries => Buckets?.Boundaries;

    /// <summary>The boundaries, checked and copied, or null.</summary>
    internal HistogramBuckets? Buckets { get; }

    // The boundaries converted once, shared by every series.
    private static Func<TagSet, OperationSeries> SeriesFactory(PartitionArena arena, TimestampBuckets? timestampBuckets) =>
        tags => new OperationSeries(tags, arena, timestampBuckets);

    /// <summary>Starts timing one operation of the series named by <paramref name="tags"/>; disposing the scope records it.</summary>
    /// <param name="tags">The series' tags, in any order; none for the series without tags.</param>
    /// <returns>A scope to dispose exactly once, when the operation ends.</returns>
    /// <exception cref="ArgumentException">A tag key is null, empty, repeated, reserved or too long, two keys export as one label name, a tag value is null, of an unsupported type or too long, or there are too many tags (see <see cref="MetricRegistryOptions"/>); nothing is recorded.</exception>
    public OperationScope Start(params ReadOnlySpan<KeyValuePair<string, object?>> tags) => Table.GetOrAdd(tags).Start();

    /// <summary>Records one operation that took <paramref name="elapsed"/>.</summary>
    /// <param name="elapsed">The operation's duration, from zero to <see cref="MaxElapsed"/>.</param>
    /// <param name="tags">The series' tags, in any order; none for the series without tags.</param>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="elapsed"/> is negative or longer than <see cref="MaxElapsed"/>; nothing is recorded.</exception>
    /// <exception cref="ArgumentException">A tag key is null, empty, repeated, reserved or too long, two keys export as one label name, a tag value is null, of an unsupported type or too long, or there are too many tags (see <see cref="MetricRegistryOptions"/>); nothing is recorded.</exception>
    public void Record(TimeSpan elapsed, params ReadOnlySpan<KeyValuePair<string, object?>> tags)
    {
        if (elapsed < TimeSpan.Zero || elapsed > MaxElapsed)
        {
            ThrowHelper.ThrowElapsedOutOfRange(nameof(elapsed), elapsed, elapsed < TimeSpan.Zero);
        }

        Table.GetOrAdd(tags).Record(elapsed);
    }

    /// <summary>Sums every series' partitions.</summary>
    /// <returns>One reading per series, in no particular order.</returns>
    /// <remarks>Region by region, vectorized, over the series' slots; serialized with every other read of the registry's series.</remarks>
    public IReadOnlyList<OperationReading> Collect() =>
        SnapshotReadings.Of(this, static (snapshot, i) => snapshot.BucketCountsAt(i) is { IsEmpty: false } buckets
            ? OperationReading.FromBuckets(snapshot.TagsAt(i), buckets.ToArray(), snapshot.ElapsedTimestampTicksAt(i))
            : new OperationReading(snapshot.TagsAt(i), snapshot.OperationCountAt(i), snapshot.ElapsedTimestampTicksAt(i)));

    /// <inheritdoc/>
    internal override void ReadInto(InstrumentSnapshot snapshot, bool collection)
    {
        ArraySegment<OperationSeries> series = Table.BeginRead(out long read, collection);
        int bucketCount = Buckets?.BucketCount ?? 0;
        int slotsPerSeries = bucketCount == 0 ? OperationSeries.SlotCount : bucketCount + 1;
        snapshot.BeginSeries(series, slotsPerSeries, doubles: false);
        snapshot.SetBucketCount(bucketCount);
        OperationSeries.ReadAllInto(Arena, series, slotsPerSeries, snapshot, collection);
        Table.EndRead(read, snapshot, IdleCollections);
    }

    /// <inheritdoc/>
    internal override void Accept(IInstrumentSink sink) => sink.Operation(this);
}
