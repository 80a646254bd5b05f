using System.Diagnostics;
using System.Runtime.CompilerServices;
using ScalableMetrics.Exporter.Prometheus.Exposition;

namespace ScalableMetrics.Exporter.OpenTelemetry.Otlp.Encoding;

/// <summary>
/// What an OTLP export keeps of one instrument between exports: the state of each of its series,
/// found by the series' position in the instrument's readings (a registry keeps its series in
/// creation order, so one reference compare finds it), and by its tags where the position does
/// not match (a new series; a series after a removed one; an observable instrument, whose
/// callback reports in any order). A series no longer read whose last point may not have reached
/// the receiver is kept until an export carrying that point is accepted
/// (<see cref="OtlpSeriesState.FinalPoint"/>, <see cref="Unsent"/>).
/// </summary>
/// <remarks>Not thread-safe: touched by one export at a time.</remarks>
internal sealed class OtlpInstrumentState
{
    private readonly Dictionary<TagSet, OtlpSeriesState> _byTags = [];
    private OtlpSeriesState?[] _byPosition = [];

    // Series whose tags a newer series took while they still owed their last point: out of _byTags,
    // written by every export until one is accepted.
    private List<OtlpSeriesState>? _displaced;

    // The export reading the instrument now (or last), and how many series states it read.
    private long _readGeneration;
    private int _readCount;

    // Room for the series that owe a point (Unsent), kept from export to export.
    private List<OtlpSeriesState>? _unsent;

    // A histogram read into arrays (not readings) keeps its delta baselines here, by series
    // position, rather than a reading per series: the last accepted export's bucket counts and
    // sums, and the export under way's, swapped when that export is accepted.
    private HistogramBaselines _pending = new();
    private HistogramBaselines _committed = new();
    private bool _hasPending;

    // A histogram's explicit_bounds field, encoded once (its boundaries never change).
    private byte[]? _explicitBounds;

    /// <summary>The length of the instrument's <c>Metric</c> in the last export that wrote one (see <see cref="ProtobufBuffer.BeginMessage(int, int)"/>).</summary>
    public int MetricLength { get; set; }

    /// <summary>The length of its <c>Sum</c>, <c>Gauge</c>, <c>Histogram</c> or <c>ExponentialHistogram</c> in that export.</summary>
    public int DataLength { get; set; }

    /// <summary>When the instrument's cumulative points start (Unix nanoseconds), fixed at its first
    /// export: its creation, or the collection before where it was created during that export, after
    /// the export's time was taken (<c>start_time_unix_nano</c> is never after <c>time_unix_nano</c>);
    /// 0 before one.</summary>
    public ulong StartUnixNano { get; set; }

    /// <summary>The export that last read the instrument, whose series are committed when it is accepted.</summary>
    public long Generation { get; set; }

    /// <summary>When the last accepted export that read the instrument was taken (Unix nanoseconds),
    /// 0 before one: where its series' committed readings, and so its next delta points, start.</summary>
    /// <remarks>The instrument's own, not the last accepted export's: an export that left it out
    /// (its callback failed) moved none of its baselines, so its next points still measure from this one.</remarks>
    public ulong CommittedUnixNano { get; private set; }

    /// <summary>The last accepted export that read the instrument, 0 before one: a series read since owes the receiver its point (<see cref="OtlpSeriesState.OwesPoint"/>).</summary>
    public long CommittedGeneration { get; private set; }

    /// <summary>
    /// Whether some series of the instrument may owe the receiver a point though the instrument has
    /// no series now: its last read was not accepted, or a displaced series waits. Such an
    /// instrument is still written, for those points alone.
    /// </summary>
    public bool MayOwePoints => _displaced is { Count: > 0 } || (Generation != CommittedGeneration && _byTags.Count > 0);

    /// <summary>The state of the series read at <paramref name="position"/> with <paramref name="tags"/>, created where it has none.</summary>
    /// <param name="position">The reading's position in its instrument's readings.</param>
    /// <param name="tags">The reading's tags.</param>
    /// <param name="attributesField">The field number of attributes in the kind's data point.</param>
    /// <param name="scratch">A buffer to encode a new series' attributes in.</param>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public OtlpSeriesState Series(int position, TagSet tags, int attributesField, ProtobufBuffer scratch) =>
        (uint)position < (uint)_byPosition.Length && _byPosition[position] is { } state && ReferenceEquals(state.Tags, tags)
            ? state
            : Find(position, tags, attributesField, scratch);

    /// <summary>Starts the read of the instrument by the export <paramref name="generation"/>: the series it finds are counted (<see cref="MarkRead"/>).</summary>
    /// <param name="generation">The export under way.</param>
    public void BeginRead(long generation)
    {
        _readGeneration = generation;
        _readCount = 0;
    }

    /// <summary>Marks <paramref name="series"/> read by the export under way: its pending reading is that export's.</summary>
    /// <param name="series">A state <see cref="Series"/> returned in this read.</param>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public void MarkRead(OtlpSeriesState series)
    {
        if (series.PendingGeneration != _readGeneration)
        {
            series.PendingGeneration = _readGeneration;
            _readCount++;
        }
    }

    /// <summary>
    /// The series the read under way did not find that owe the receiver their last point
    /// (<see cref="OtlpSeriesState.OwesPoint"/>): removed, or no longer reported by a callback, after
    /// an export that carried them was not accepted. Null where there are none, found without a
    /// look at each series where every series kept was read.
    /// </summary>
    /// <returns>The list, valid until the next call; or null.</returns>
    public List<OtlpSeriesState>? Unsent()
    {
        if (_readCount == _byTags.Count && _displaced is not { Count: > 0 })
        {
            return null;
        }

        List<OtlpSeriesState> unsent = _unsent ??= [];
        unsent.Clear();
        if (_displaced is not null)
        {
            unsent.AddRange(_displaced);
        }

        if (_readCount != _byTags.Count)
        {
            foreach (OtlpSeriesState state in _byTags.Values)
            {
                if (state.PendingGeneration != _readGeneration && state.OwesPoint(CommittedGeneration))
                {
                    unsent.Add(state);
                }
            }
        }

        return unsent.Count == 0 ? null : unsent;
    }

    /// <summary>The bucket counts (series i's at i × buckets) the last accepted export read, for the series it read.</summary>
    public ReadOnlySpan<long> CommittedCounts => _committed.Counts;

    /// <summary>The sums (series i's at i) the last accepted export read, for the series it read.</summary>
    public ReadOnlySpan<double> CommittedSums => _committed.Sums;

    /// <summary>Room for the export under way's bucket counts and sums of <paramref name="series"/> series of <paramref name="buckets"/> buckets, to write.</summary>
    /// <param name="series">How many series the export reads.</param>
    /// <param name="buckets">Bucket counts per series.</param>
    /// <param name="counts">Series i's bucket counts go at i × <paramref name="buckets"/>.</param>
    /// <param name="sums">Series i's sum goes at i.</param>
    public void PendingFor(int series, int buckets, out Span<long> counts, out Span<double> sums)
    {
        _hasPending = true;
        _pending.Reset(series, buckets, out counts, out sums);
    }

    /// <summary>The <c>explicit_bounds</c> field of <paramref name="boundaries"/>, encoded at the first call and kept.</summary>
    /// <param name="boundaries">The histogram's boundaries, the same at every call.</param>
    /// <param name="scratch">A buffer to encode them in.</param>
    public byte[] ExplicitBounds(IReadOnlyList<double> boundaries, ProtobufBuffer scratch)
    {
        if (_explicitBounds is null)
        {
            scratch.Clear();
            scratch.PackedDoubles(OtlpFields.HistogramExplicitBounds, boundaries);
            _explicitBounds = scratch.Written.ToArray();
        }

        return _explicitBounds;
    }

    /// <summary>
    /// Moves the baselines of the series the export of <paramref name="generation"/> read to that
    /// reading; a series it did not read (removed, or an observable instrument's callback no longer
    /// reports it) keeps nothing, so that if it comes back its whole value is its first delta: that
    /// export carried whatever point it still owed (<see cref="Unsent"/>).
    /// </summary>
    /// <param name="generation">The accepted export, which read this instrument.</param>
    /// <param name="timeUnixNano">When that export was taken: its points' end, the next delta's start.</param>
    /// <param name="moveBaselines">Whether the export was delta; a cumulative one keeps no baselines,
    /// and only lets go of the series it did not read.</param>
    public void Commit(long generation, ulong timeUnixNano, bool moveBaselines)
    {
        Debug.Assert(generation == _readGeneration, "only the latest read of the instrument is committed");
        CommittedUnixNano = timeUnixNano;
        CommittedGeneration = generation;
        _displaced?.Clear();
        if (!moveBaselines && _readCount == _byTags.Count)
        {
            return;
        }

        // The arrays hold what this instrument's latest read wrote, which is the export of
        // generation (only the latest collection is committed, and only its instruments); a second
        // commit of the same export finds none pending.
        if (_hasPending)
        {
            _hasPending = false;
            (_committed, _pending) = (_pending, _committed);
        }

        List<TagSet>? gone = null;
        foreach (OtlpSeriesState state in _byTags.Values)
        {
            if (state.PendingGeneration == generation)
            {
                state.Committed = state.Pending;
                state.CommittedPosition = state.PendingPosition;
                state.CommittedExemplarUnixNano = state.PendingExemplarUnixNano;
                state.HasCommitted = true;
                state.FinalPoint = null;
            }
            else
            {
                state.HasCommitted = false;
                (gone ??= []).Add(state.Tags);
            }
        }

        if (gone is not null)
        {
            foreach (TagSet tags in gone)
            {
                _byTags.Remove(tags);
            }

            Array.Clear(_byPosition);
        }
    }

    private static T[] Grow<T>(ref T[] array, int count)
    {
        if (array.Length < count)
        {
            array = new T[Math.Max(count, array.Length + (array.Length / 2))];
        }

        return array;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private OtlpSeriesState Find(int position, TagSet tags, int attributesField, ProtobufBuffer scratch)
    {
        if (!_byTags.TryGetValue(tags, out OtlpSeriesState? state))
        {
            state = new OtlpSeriesState(tags, OtlpAttributes.Encode(scratch, attributesField, tags));
            _byTags.Add(tags, state);
        }
        else if (!ReferenceEquals(state.Tags, tags))
        {
            // Equal tags in another object: a series keeps its tag set for life, so this is a new
            // series of a removed one's tags, which starts afresh (its whole value is its first
            // delta). The removed one, where it still owes its last point, keeps a state of its own.
            if (state.OwesPoint(CommittedGeneration))
            {
                (_displaced ??= []).Add(state);
                state = new OtlpSeriesState(tags, state.Attributes);
                _byTags[tags] = state;
            }
            else
            {
                state.Tags = tags;
                state.HasCommitted = false;
                state.FinalPoint = null;
                state.OwnStartUnixNano = 0;
            }
        }

        if (position >= _byPosition.Length)
        {
            Array.Resize(ref _byPosition, Math.Max(position + 1, 2 * _byPosition.Length));
        }

        _byPosition[position] = state;
        return state;
    }

    // One export's histogram baselines: series i's bucket counts at i × buckets, its sum at i.
    private sealed class HistogramBaselines
    {
        private long[] _counts = [];
        private double[] _sums = [];
        private int _length;
        private int _series;

        public ReadOnlySpan<long> Counts => _counts.AsSpan(0, _length);

        public ReadOnlySpan<double> Sums => _sums.AsSpan(0, _series);

        // Room for the bucket counts and the sums of that many series, to write.
        public void Reset(int series, int buckets, out Span<long> counts, out Span<double> sums)
        {
            _series = series;
            _length = series * buckets;
            counts = Grow(ref _counts, _length).AsSpan(0, _length);
            sums = Grow(ref _sums, series).AsSpan(0, series);
        }
    }
}
