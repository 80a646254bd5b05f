using System.Diagnostics;
using ScalableMetrics.Cells;
using ScalableMetrics.Instruments.ExponentialHistograms;
using ScalableMetrics.Instruments.Histograms;

using ScalableMetrics.SeriesTables;

namespace ScalableMetrics.Snapshots;

/// <summary>
/// One instrument's series, read at once by <see cref="Instrument.ReadInto(InstrumentSnapshot, bool)"/> into columns the
/// reader owns and reuses: the one shape every consumer reads (the Prometheus scrape, OTLP, the
/// OpenTelemetry bridge, <c>Collect()</c>), whatever the instrument's kind or how its series are
/// stored.
/// </summary>
/// <remarks>
/// <para>Series i of the last read has a key (<see cref="KeyAt"/>: the same object from read to
/// read, so a reader can keep what it derives from a series by position and find it again with
/// one reference compare; an observable instrument's series too) and tags; then, by the kind that was read: a value
/// (<see cref="LongValues"/> or <see cref="DoubleValues"/>) and the newest exemplar
/// (<see cref="ExemplarAt"/>); a histogram's bucket counts, sum and each bucket's newest exemplar;
/// an exponential histogram's point; an operation's count, elapsed time and bucket counts. How
/// the columns are laid out is the snapshot's own: a reader never sees a stride.</para>
/// <para>The columns grow to the largest instrument read and are then reused, so that a steady
/// reader (a scrape every few seconds) allocates nothing per series and nothing per read. Models:
/// the runtime's <c>Aggregator.Collect()</c>, client_java's <c>MetricSnapshot</c>.</para>
/// <para>What a read wrote stays valid until the next read into the same snapshot. Not
/// thread-safe: one reader at a time.</para>
/// </remarks>
internal sealed class InstrumentSnapshot
{
    // The series read: a series table's own array (covariant, read only; its first _count entries)
    // or _ownSeries (a gauge's set series, an observable instrument's reported ones).
    private Series[]? _series;
    private Series[] _ownSeries = [];
    private int _count;

    // The slots each series read: its values (one), or its bucket counts and more, _longStride apart.
    private long[] _longs = [];
    private int _longStride;
    private double[] _doubles = [];
    private bool _hasDoubles;

    // The exemplars: _exemplarStride per series (one for a counter, a histogram's buckets), none where 0.
    private Exemplar?[] _exemplars = [];
    private int _exemplarStride;
    private bool[] _exemplarsKept = [];

    // A histogram's or an operation's bucket counts per series (0: none); an exponential histogram's buckets.
    private int _bucketCount;
    private ExponentialBuckets? _exponentialBuckets;
    private long[] _point = [];
    private Exemplar[] _pointExemplars = [];

    // Room for where each series' slots are during the read.
    private SlotRange[] _ranges = [];

    /// <summary>The number of series the last read read.</summary>
    public int Count => _count;

    /// <summary>Whether the last read read exemplars (the series keep them: all of an instrument's series do, or none).</summary>
    public bool HasExemplars => _exemplarStride != 0;

    /// <summary>When series <paramref name="index"/> started, where it has a start of its own: made after a removal of its instrument (<see cref="SeriesStartTimes"/>); null where it starts with its instrument.</summary>
    public DateTimeOffset? OwnStartAt(int index) => SeriesStartTimes.Of(_series![index]);

    /// <summary>
    /// Whether series <paramref name="index"/> is removed from its instrument (<c>Remove</c>, idle
    /// expiry) by now: this read, or another reader's that ran beside it, was its last
    /// (<see cref="SeriesTable{TSeries}.EndRead"/>), and no later read has it. A reader that may
    /// have to send this reading again (an OTLP export not accepted) keeps it.
    /// </summary>
    public bool IsRemovedAt(int index) => _series![index].IsRemoved;

    /// <summary>When series <paramref name="index"/> started counting (OpenMetrics' <c>_created</c>): its own start, or <paramref name="instrumentCreated"/> (null for an instrument that has none).</summary>
    public DateTimeOffset? CreatedAt(int index, DateTimeOffset? instrumentCreated) =>
        instrumentCreated is null ? null : OwnStartAt(index) ?? instrumentCreated;

    /// <summary>
    /// A 64-bit digest of everything series <paramref name="index"/> read (its slots and its
    /// <see cref="double"/>): equal from one read to the next where the series was not written
    /// since, or where its writes left every slot as it was (an add of 0; an up-down counter's +1
    /// and -1). Idle expiry's test of "written" (<see cref="MetricRegistryOptions.RemoveSeriesIdleForCollections"/>).
    /// </summary>
    internal long DigestAt(int index)
    {
        ulong digest = 0xCBF29CE484222325;
        foreach (long slot in _longs.AsSpan(index * _longStride, _longStride))
        {
            digest = (digest ^ (ulong)slot) * 0x100000001B3;
            digest ^= digest >> 29;
        }

        if (_hasDoubles)
        {
            digest = (digest ^ (ulong)BitConverter.DoubleToInt64Bits(_doubles[index])) * 0x100000001B3;
        }

        return (long)digest;
    }

    /// <summary>Each series' value, of a counter, an up-down counter or a gauge of <see cref="long"/>s.</summary>
    public ReadOnlySpan<long> LongValues
    {
        get
        {
            Debug.Assert(_longStride == 1, "one value per series");
            return _longs.AsSpan(0, _count);
        }
    }

    /// <summary>Each series' value, of a counter, an up-down counter or a gauge of <see cref="double"/>s, or of an observable instrument.</summary>
    public ReadOnlySpan<double> DoubleValues => _doubles.AsSpan(0, _count);

    /// <summary>
    /// The key of series <paramref name="index"/>: the series itself. The same object at every
    /// read of the same series.
    /// </summary>
    public object KeyAt(int index) => _series![index];

    /// <summary>The tags of series <paramref name="index"/>.</summary>
    public TagSet TagsAt(int index) => _series![index].Tags;

    /// <summary>The newest exemplar of series <paramref name="index"/> (a counter's), or null where none was kept or the series keep none.</summary>
    public Exemplar? ExemplarAt(int index) => _exemplarStride != 0 ? _exemplars[index] : null;

    /// <summary>The bucket counts (not cumulative) of series <paramref name="index"/> of a histogram, or of an operation with boundaries (empty without).</summary>
    public ReadOnlySpan<long> BucketCountsAt(int index) => _longs.AsSpan(index * _longStride, _bucketCount);

    /// <summary>The sum of series <paramref name="index"/> of a histogram.</summary>
    public double SumAt(int index) => _doubles[index];

    /// <summary>
    /// The newest exemplar of each bucket of series <paramref name="index"/> of a histogram that
    /// keeps exemplars, or empty where the series never kept one (or none are kept).
    /// </summary>
    public ArraySegment<Exemplar?> BucketExemplarsAt(int index) =>
        _exemplarStride != 0 && _exemplarsKept[index] ? new(_exemplars, index * _exemplarStride, _exemplarStride) : default;

    /// <summary>
    /// The point of series <paramref name="index"/> of an exponential histogram: what its reading
    /// carries (trimmed, downscaled to fit the instrument's maximum buckets, classic counts
    /// cumulative, its sampled exemplars where it keeps them).
    /// </summary>
    /// <returns>The point, valid until the next point or read.</returns>
    public ExponentialHistogramPoint ExponentialHistogramAt(int index)
    {
        ExponentialBuckets buckets = _exponentialBuckets!;
        return ExponentialHistogramPoint.Of(buckets, ExponentialCountsAt(index), _doubles[index], Grow(ref _point, ExponentialHistogramPoint.RoomFor(buckets)).AsSpan(0, ExponentialHistogramPoint.RoomFor(buckets)), SampledExemplarsAt(index));
    }

    /// <summary>Series <paramref name="index"/> of an exponential histogram as a reading of its own (the values of <see cref="ExponentialHistogramAt"/>, in arrays of its own).</summary>
    public ExponentialHistogramReading ExponentialHistogramReadingAt(int index) =>
        ExponentialHistogramReading.Create(TagsAt(index), _exponentialBuckets!, ExponentialCountsAt(index), _doubles[index], SampledExemplarsAt(index));

    /// <summary>The count of series <paramref name="index"/> of an operation: where it has boundaries, its bucket counts' sum, saturating.</summary>
    public long OperationCountAt(int index)
    {
        if (_bucketCount == 0)
        {
            return _longs[index * _longStride];
        }

        return SaturatingCounts.Total(BucketCountsAt(index));
    }

    /// <summary>The time series <paramref name="index"/> of an operation measured, in <see cref="Stopwatch"/> ticks.</summary>
    public long ElapsedTimestampTicksAt(int index) => _longs[(index * _longStride) + (_bucketCount == 0 ? 1 : _bucketCount)];

    /// <summary>The time series <paramref name="index"/> of an operation measured, in seconds.</summary>
    public double ElapsedSecondsAt(int index) => (double)ElapsedTimestampTicksAt(index) / Stopwatch.Frequency;

    /// <summary>
    /// The sampled exemplars of series <paramref name="index"/> of an exponential histogram, oldest
    /// first (a reservoir's read leaves its kept ones first, then nulls), copied into room kept from
    /// point to point; empty where the series keeps none.
    /// </summary>
    internal ReadOnlySpan<Exemplar> SampledExemplarsAt(int index)
    {
        ArraySegment<Exemplar?> read = BucketExemplarsAt(index);
        Span<Exemplar> kept = Grow(ref _pointExemplars, read.Count).AsSpan(0, read.Count);
        int count = 0;
        foreach (Exemplar? exemplar in read.AsSpan())
        {
            if (exemplar is not { } value)
            {
                break;
            }

            kept[count++] = value;
        }

        return kept[..count];
    }

    /// <summary>An exponential histogram's count slots of series <paramref name="index"/> as read (the zero bucket, the positive buckets, the classic buckets).</summary>
    internal ReadOnlySpan<long> ExponentialCountsAt(int index) => _longs.AsSpan(index * _longStride, _exponentialBuckets!.CountSlots);

    /// <summary>
    /// Starts a read of the series of a series table, <paramref name="series"/> (the table's own
    /// array, not copied): <paramref name="longStride"/> longs and, where <paramref name="doubles"/>,
    /// a <see cref="double"/> per series; no exemplars until <see cref="ReadExemplars"/>.
    /// </summary>
    internal void BeginSeries<TSeries>(ArraySegment<TSeries> series, int longStride, bool doubles)
        where TSeries : Series
    {
        _series = series.Array;
        _count = series.Count;
        Begin(_count, longStride, doubles);
    }

    /// <summary>Starts a read of some of a table's series, added one by one with <see cref="AddSeries"/> (a gauge's that have a value).</summary>
    internal void BeginOwnSeries(int capacity, int longStride, bool doubles)
    {
        _series = Grow(ref _ownSeries, capacity);
        _count = 0;
        Begin(capacity, longStride, doubles);
    }

    /// <summary>Adds <paramref name="series"/> to a read begun with <see cref="BeginOwnSeries"/>.</summary>
    /// <returns>Its index, where its value goes.</returns>
    internal int AddSeries(Series series)
    {
        Debug.Assert(ReferenceEquals(_series, _ownSeries), "a read of the snapshot's own series");
        _ownSeries[_count] = series;
        return _count++;
    }

    /// <summary>
    /// Adds <paramref name="series"/> to a read begun with <see cref="BeginOwnSeries"/>, growing the
    /// columns where the read holds more series than it began with room for (a callback reporting
    /// a series for the first time). The values' columns are written after the last series is added.
    /// </summary>
    /// <returns>Its index, where its value goes.</returns>
    internal int AddSeriesGrowing(Series series)
    {
        Debug.Assert(ReferenceEquals(_series, _ownSeries), "a read of the snapshot's own series");
        if (_count == _ownSeries.Length)
        {
            // Grown keeping the series added so far (Grow does not copy: every other column is written whole after it).
            Array.Resize(ref _ownSeries, Math.Max(4, _ownSeries.Length * 2));
            _series = _ownSeries;
        }

        Grow(ref _longs, (_count + 1) * _longStride);
        Grow(ref _doubles, _count + 1);
        return AddSeries(series);
    }

    /// <summary>
    /// Lets go of what the last read referred to (its series, their exemplars), keeping the
    /// columns' memory for the next read: a snapshot kept between reads then keeps no series alive.
    /// </summary>
    internal void ReleaseReferences()
    {
        _series = null;
        Array.Clear(_ownSeries);
        if (_exemplarStride != 0)
        {
            Array.Clear(_exemplars);
        }

        _count = 0;
    }

    /// <summary>A histogram's or an operation's buckets per series (0: none), set after the read begins.</summary>
    internal void SetBucketCount(int bucketCount) => _bucketCount = bucketCount;

    /// <summary>An exponential histogram's buckets, whose points the read's series make.</summary>
    internal void SetExponentialBuckets(ExponentialBuckets buckets) => _exponentialBuckets = buckets;

    /// <summary>Room for the read's longs, <see cref="Count"/> times the stride, to write.</summary>
    internal Span<long> Longs() => _longs.AsSpan(0, _count * _longStride);

    /// <summary>Room for the read's doubles, one per series, to write.</summary>
    internal Span<double> Doubles() => _doubles.AsSpan(0, _count);

    /// <summary>Room for <paramref name="count"/> slot ranges.</summary>
    internal Span<SlotRange> Ranges(int count) => Grow(ref _ranges, count).AsSpan(0, count);

    /// <summary>
    /// Reads each series' newest exemplar of each of its <paramref name="perSeries"/> slots before
    /// its values are read, so that every exemplar's add is in the value read after it. Where no
    /// series keeps exemplars, nothing is read and <see cref="HasExemplars"/> stays false.
    /// </summary>
    internal void ReadExemplars<TSeries>(ReadOnlySpan<TSeries> series, int perSeries)
        where TSeries : PartitionedSeries
    {
        // An instrument's series all keep exemplars or none do.
        if (series.IsEmpty || series[0].Exemplars is null)
        {
            return;
        }

        _exemplarStride = perSeries;
        Span<Exemplar?> exemplars = Grow(ref _exemplars, series.Length * perSeries).AsSpan(0, series.Length * perSeries);
        Span<bool> kept = Grow(ref _exemplarsKept, series.Length).AsSpan(0, series.Length);
        for (int i = 0; i < series.Length; i++)
        {
            Span<Exemplar?> ofSeries = exemplars.Slice(i * perSeries, perSeries);
            kept[i] = series[i].Exemplars is { } reservoir && reservoir.ReadInto(ofSeries);
            if (!kept[i])
            {
                ofSeries.Clear();
            }
        }
    }

    // Room for capacity series of the kind, and nothing of the last read's kind left.
    private void Begin(int capacity, int longStride, bool doubles)
    {
        _longStride = longStride;
        _hasDoubles = doubles;
        _exemplarStride = 0;
        _bucketCount = 0;
        _exponentialBuckets = null;
        Grow(ref _longs, capacity * longStride);
        if (doubles)
        {
            Grow(ref _doubles, capacity);
        }
    }

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
