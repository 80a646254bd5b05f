using System.Diagnostics;
using System.Numerics;
using System.Runtime.CompilerServices;
using ScalableMetrics.Exporter.Listening;
using ScalableMetrics.Exporter.Prometheus.Exposition;
using ScalableMetrics.Instruments;
using ScalableMetrics.Snapshots;

namespace ScalableMetrics.Exporter.OpenTelemetry.Otlp.Encoding;

/// <summary>
/// Writes one instrument as an OTLP <c>Metric</c>, by its kind: a kind the core adds does not
/// compile until it is written here (<see cref="IInstrumentSink"/>).
/// </summary>
/// <remarks>
/// <para>Counters and up-down counters as <c>Sum</c> (monotonic or not), gauges as <c>Gauge</c>,
/// histograms as <c>Histogram</c> (no min or max: the registry keeps neither), exponential
/// histograms as <c>ExponentialHistogram</c>, operations as a <c>Histogram</c> in seconds (its
/// buckets where it has boundaries), observable instruments as their kind. Long values go out as
/// <c>as_int</c>, double ones as <c>as_double</c>. The name is the instrument's own (OpenTelemetry's),
/// not the Prometheus one.</para>
/// <para>With delta temporality, counters, observable counters, histograms, exponential histograms
/// (bucket by bucket) and operations go out as the change since each series' committed reading
/// (<see cref="OtlpSeriesState"/>), starting at the last accepted export; up-down counters stay
/// cumulative and gauges have none, as the OpenTelemetry specification's delta preference has it.
/// Low-memory temporality is the same but for observable counters, which stay cumulative.
/// A synchronous series with nothing recorded since the last accepted export has no delta point
/// (the specification's <c>MetricReader.Collect</c>); an observable counter's series reported by
/// its callback always has one.
/// A delta point carries only the exemplars taken since its start that no accepted delta point of
/// its series carried (each series keeps the newest exemplar time its accepted points carried,
/// <see cref="OtlpSeriesState.CommittedExemplarUnixNano"/>). No point starts after its time:
/// an instrument, or a series made after a removal, that appeared after the export took its time
/// starts at the export before, as an observable series made after a removal always does (the
/// specification's start of an asynchronous series).</para>
/// <para>A series' last point is not lost with an export that is not accepted: the point of a
/// series' final read (the read that removed it) is kept, and so is an observable series' last
/// report; every later export that reads the instrument writes it again, as it was (its start,
/// its time, its value), until one is accepted (<see cref="OtlpInstrumentState.Unsent"/>). Under
/// delta temporality that is the series' last change, under cumulative its final total.</para>
/// <para>Not thread-safe: one export at a time.</para>
/// </remarks>
internal sealed partial class OtlpInstrumentEncoder(ProtobufBuffer output, OtlpTemporality temporality, ILogger logger) : IInstrumentSink
{
    private const ulong NanosPerTick = 100;

    private readonly ProtobufBuffer _scratch = new(256);

    // Every instrument is read into these columns, kept from export to export (grown to the largest instrument).
    private readonly InstrumentSnapshot _snapshot = new();

    // An observable instrument whose callback fails is left out of every export it fails in, and
    // each cause logged once, not at every export.
    private readonly ObservableFailureLog _callbackFailures = new((instrument, cause) => LogCallbackFailed(logger, cause, instrument.Name, cause.GetType().Name, cause.Message));

    // Synchronous counters and histograms go delta under both delta preferences; observable
    // counters only under Delta: LowMemory sends the totals their callbacks report.
    private readonly bool _syncDelta = temporality != OtlpTemporality.Cumulative;
    private readonly bool _asyncDelta = temporality == OtlpTemporality.Delta;
    private long[] _deltaBuckets = new long[64];

    private long _generation;
    private ulong _now;
    private ulong _previous;
    private ulong _lastCommit;
    private OtlpInstrumentState _state = null!;

    // Whether the instrument being written is observable: its series' last reports are kept (KeepObserved).
    private bool _observed;

    /// <summary>Data points written since <see cref="BeginExport"/>.</summary>
    public int DataPoints { get; private set; }

    /// <summary>Starts an export: its generation, its time, and when the last accepted one was taken (0 for none).</summary>
    /// <remarks>The export before it, accepted or not, is the previous collection a series first read
    /// now may start at (<see cref="OwnStart"/>).</remarks>
    public void BeginExport(long generation, ulong nowUnixNano, ulong lastCommitUnixNano)
    {
        _generation = generation;
        _previous = _now;
        _now = nowUnixNano;
        _lastCommit = lastCommitUnixNano;
        DataPoints = 0;
    }

    /// <summary>
    /// Writes <paramref name="instrument"/> as a <c>Metric</c> of the <c>ScopeMetrics</c> being
    /// written, or nothing where it has no data point (a gauge never set, a callback that reported
    /// nothing or failed).
    /// </summary>
    /// <returns>Whether the instrument was read (false only for a callback that failed): its series' readings are then pending in <paramref name="state"/>.</returns>
    public bool Write(Instrument instrument, OtlpInstrumentState state)
    {
        if (!TryRead(instrument))
        {
            return false;
        }

        _state = state;
        _observed = instrument is ObservableInstrument;
        state.BeginRead(_generation);
        if (state.StartUnixNano == 0)
        {
            state.StartUnixNano = InstrumentStart(UnixNano(instrument.CreatedAt));
        }

        int mark = output.Position;
        int points = DataPoints;
        int expected = state.MetricLength;
        int metric = output.BeginMessage(OtlpFields.ScopeMetricsMetrics, expected);
        output.String(OtlpFields.MetricName, instrument.Name);
        if (!string.IsNullOrEmpty(instrument.Description))
        {
            output.String(OtlpFields.MetricDescription, instrument.Description);
        }

        if (!string.IsNullOrEmpty(instrument.Unit))
        {
            output.String(OtlpFields.MetricUnit, instrument.Unit);
        }

        instrument.Accept(this);
        if (DataPoints == points)
        {
            output.Truncate(mark);
        }
        else
        {
            state.MetricLength = output.EndMessage(metric, expected);
        }

        state.Generation = _generation;
        return true;
    }

    // Each kind from the snapshot Write read it into.
    public void Counter(PartitionedCounter counter) => WriteNumbers(counter, _snapshot.LongValues, OtlpFields.MetricSum, _syncDelta, monotonic: true, asInt: true);

    public void DoubleCounter(PartitionedDoubleCounter counter) => WriteNumbers(counter, _snapshot.DoubleValues, OtlpFields.MetricSum, _syncDelta, monotonic: true, asInt: false);

    public void UpDownCounter(PartitionedUpDownCounter counter) => WriteNumbers(counter, _snapshot.LongValues, OtlpFields.MetricSum, delta: false, monotonic: false, asInt: true);

    public void DoubleUpDownCounter(PartitionedDoubleUpDownCounter counter) => WriteNumbers(counter, _snapshot.DoubleValues, OtlpFields.MetricSum, delta: false, monotonic: false, asInt: false);

    public void Gauge(Gauge gauge) => WriteNumbers(gauge, _snapshot.LongValues, OtlpFields.MetricGauge, delta: false, monotonic: false, asInt: true);

    public void DoubleGauge(DoubleGauge gauge) => WriteDoubleGauge(gauge, asInt: false);

    public void ObservableCounter(ObservableCounter counter) => WriteNumbers(counter, _snapshot.DoubleValues, OtlpFields.MetricSum, _asyncDelta, monotonic: true, asInt: !counter.IsFloatingPoint);

    public void ObservableUpDownCounter(ObservableUpDownCounter counter) => WriteNumbers(counter, _snapshot.DoubleValues, OtlpFields.MetricSum, delta: false, monotonic: false, asInt: !counter.IsFloatingPoint);

    public void ObservableGauge(ObservableGauge gauge) => WriteDoubleGauge(gauge, asInt: !gauge.IsFloatingPoint);

    // From the snapshot (each bucket's newest exemplar read first where the series keep them), a
    // delta's baselines in the instrument's state by series position.
    public void Histogram(PartitionedHistogram histogram)
    {
        InstrumentSnapshot snapshot = _snapshot;
        bool keepsExemplars = snapshot.HasExemplars;
        IReadOnlyList<double> boundaries = histogram.Boundaries;
        int bucketCount = boundaries.Count + 1;
        bool delta = _syncDelta;
        ulong start = Start(delta);
        byte[] bounds = _state.ExplicitBounds(boundaries, _scratch);
        Span<long> pendingCounts = default;
        Span<double> pendingSums = default;
        ReadOnlySpan<long> committedCounts = default;
        ReadOnlySpan<double> committedSums = default;
        if (delta)
        {
            _state.PendingFor(snapshot.Count, bucketCount, out pendingCounts, out pendingSums);
            committedCounts = _state.CommittedCounts;
            committedSums = _state.CommittedSums;
        }

        int data = BeginData(OtlpFields.MetricHistogram);
        for (int i = 0; i < snapshot.Count; i++)
        {
            OtlpSeriesState state = Series(i, snapshot.TagsAt(i), OtlpFields.HistogramAttributes);
            ReadOnlySpan<long> counts = snapshot.BucketCountsAt(i);
            double sum = snapshot.SumAt(i);
            ReadOnlySpan<long> baseline = default;
            if (delta)
            {
                counts.CopyTo(pendingCounts.Slice(i * bucketCount, bucketCount));
                pendingSums[i] = sum;
                state.PendingPosition = i;
                BeginExemplars(state);

                // The committed arrays hold the series the last accepted export read, at the
                // positions it read them (a removal moves the series after it); a series newer than it has none.
                int at = state.CommittedPosition;
                if (state.HasCommitted && (at + 1) * bucketCount <= committedCounts.Length)
                {
                    baseline = committedCounts.Slice(at * bucketCount, bucketCount);
                    sum -= committedSums[at];
                }
            }

            long count = 0;
            for (int j = 0; j < counts.Length; j++)
            {
                count += counts[j];
            }

            long baselineCount = 0;
            for (int j = 0; j < baseline.Length; j++)
            {
                baselineCount += baseline[j];
            }

            // Nothing recorded since the last accepted export: no delta point (see Unchanged).
            if (delta && count == baselineCount)
            {
                continue;
            }

            int mark = output.Position;
            int point = BeginHistogramPoint(state, StartAt(i, state, start), count - baselineCount, sum);
            output.BeginPackedFixed64(OtlpFields.HistogramBucketCounts, bucketCount);
            for (int j = 0; j < counts.Length; j++)
            {
                output.Fixed64Value((ulong)(counts[j] - (baseline.IsEmpty ? 0 : baseline[j])));
            }

            output.Raw(bounds);
            if (keepsExemplars)
            {
                foreach (Exemplar? exemplar in snapshot.BucketExemplarsAt(i).AsSpan())
                {
                    WriteExemplar(OtlpFields.HistogramExemplars, exemplar, state, start, delta, asInt: false);
                }
            }

            EndPoint(point, i, state, mark);
        }

        EndHistogramData(data, delta);
    }

    // From the snapshot, each series as a reading of its own (its sampled exemplars read first
    // where the series keep them): a delta's baseline is the series' committed reading.
    public void ExponentialHistogram(PartitionedExponentialHistogram histogram)
    {
        InstrumentSnapshot snapshot = _snapshot;
        bool delta = _syncDelta;
        ulong start = Start(delta);
        int data = BeginData(OtlpFields.MetricExponentialHistogram);
        for (int i = 0; i < snapshot.Count; i++)
        {
            ExponentialHistogramReading reading = snapshot.ExponentialHistogramReadingAt(i);
            OtlpSeriesState series = Series(i, reading.Tags, OtlpFields.ExponentialAttributes);
            ExponentialHistogramReading? baseline = null;
            if (delta)
            {
                baseline = series.HasCommitted ? series.Committed.Reading as ExponentialHistogramReading : null;
                series.Pending = new OtlpSeriesValue { Reading = reading };
                BeginExemplars(series);
                if (reading.Count == (baseline?.Count ?? 0))
                {
                    // Nothing recorded since the last accepted export: no delta point (see Unchanged).
                    continue;
                }
            }

            int mark = output.Position;
            int point = output.BeginMessage(OtlpFields.DataPoints);
            output.Raw(series.Attributes);
            output.Fixed64(OtlpFields.ExponentialStartTime, StartAt(i, series, start));
            output.Fixed64(OtlpFields.ExponentialTime, _now);
            output.Fixed64(OtlpFields.ExponentialCount, (ulong)(reading.Count - (baseline?.Count ?? 0)));
            WriteSum(OtlpFields.ExponentialSum, reading.Sum - (baseline?.Sum ?? 0));
            output.ZigZag32(OtlpFields.ExponentialScale, reading.Scale);
            output.Fixed64(OtlpFields.ExponentialZeroCount, (ulong)(reading.ZeroCount - (baseline?.ZeroCount ?? 0)));
            WritePositiveBuckets(reading, baseline);
            output.Double(OtlpFields.ExponentialZeroThreshold, reading.ZeroThreshold);
            foreach (Exemplar exemplar in reading.Exemplars)
            {
                WriteExemplar(OtlpFields.ExponentialExemplars, exemplar, series, start, delta, asInt: false);
            }

            EndPoint(point, i, series, mark);
        }

        EndHistogramData(data, delta);
    }

    // From the snapshot: a histogram in seconds, its buckets where it has boundaries; a delta's
    // baseline is the series' committed count, time and bucket counts.
    public void Operation(OperationData operation)
    {
        InstrumentSnapshot snapshot = _snapshot;
        IReadOnlyList<double>? boundaries = operation.Boundaries;
        bool delta = _syncDelta;
        ulong start = Start(delta);
        int data = BeginData(OtlpFields.MetricHistogram);
        for (int i = 0; i < snapshot.Count; i++)
        {
            OtlpSeriesState series = Series(i, snapshot.TagsAt(i), OtlpFields.HistogramAttributes);
            long totalCount = snapshot.OperationCountAt(i);
            long totalTicks = snapshot.ElapsedTimestampTicksAt(i);
            ReadOnlySpan<long> buckets = snapshot.BucketCountsAt(i);
            long count = totalCount;
            long ticks = totalTicks;
            IReadOnlyList<long>? baselineBuckets = null;
            if (delta)
            {
                if (series.HasCommitted)
                {
                    count -= series.Committed.Count;
                    ticks -= series.Committed.Ticks;
                    baselineBuckets = series.Committed.Reading as IReadOnlyList<long>;
                }

                series.Pending = new OtlpSeriesValue { Count = totalCount, Ticks = totalTicks, Reading = boundaries is null ? null : buckets.ToArray() };
                if (count == 0)
                {
                    // Nothing recorded since the last accepted export: no delta point (see Unchanged).
                    continue;
                }
            }

            int mark = output.Position;
            int point = BeginHistogramPoint(series, StartAt(i, series, start), count, (double)ticks / Stopwatch.Frequency);
            if (boundaries is not null)
            {
                WriteBucketCounts(buckets, baselineBuckets);
                output.PackedDoubles(OtlpFields.HistogramExplicitBounds, boundaries);
            }

            EndPoint(point, i, series, mark);
        }

        EndHistogramData(data, delta);
    }

    // Unchanged: a synchronous series (a counter's, a histogram's, an exponential histogram's, an
    // operation's) with nothing recorded since the last accepted export has no delta point, as
    // metrics/sdk.md ("MetricReader") has it: "For synchronous instruments with Delta aggregation
    // temporality, MetricReader.Collect MUST only receive data points with measurements recorded
    // since the previous collection" (OpenTelemetry .NET leaves such a point out too). The series is
    // still read: its baseline moves with the export, equal as it is, and its state stays. An
    // observable counter's series keeps its point: the callback's report is a measurement of this
    // collection ("For asynchronous instruments ... data points with measurements recorded since
    // the previous collection"), and a series it reports has one, zero change or not.

    // Delta points start at the last accepted export that read their instrument, where its
    // baselines were taken (metrics.proto: delta intervals are continuous and non-overlapping; an
    // export that left the instrument out, its callback failed, moved none of them). An instrument
    // no accepted export read yet starts at the last accepted export (a series first read then has
    // its whole value as its first delta); cumulative points, and any before the first accepted
    // export, at the instrument's start (InstrumentStart).
    private ulong Start(bool delta)
    {
        ulong created = _state.StartUnixNano;
        if (!delta)
        {
            return created;
        }

        ulong committed = _state.CommittedUnixNano;
        return Math.Max(created, committed != 0 ? committed : _lastCommit);
    }

    // Series i's start: the instrument's (or, for a delta, the last accepted export's), unless the
    // series was made after a removal of its instrument, which starts it afresh (OwnStart), fixed
    // in its state when first read so that a cumulative series keeps one start.
    private ulong StartAt(int i, OtlpSeriesState series, ulong start)
    {
        if (_snapshot.OwnStartAt(i) is not { } own)
        {
            return start;
        }

        if (series.OwnStartUnixNano == 0)
        {
            series.OwnStartUnixNano = OwnStart(UnixNano(own));
        }

        return Math.Max(start, series.OwnStartUnixNano);
    }

    // An instrument's start, fixed at its first export: its creation, unless it was created during
    // this collection, after its time was taken; then the previous collection (or this one where
    // there was none), so that no point of it starts after its time.
    private ulong InstrumentStart(ulong created) => created <= _now ? created : _previous != 0 ? Math.Min(_previous, _now) : _now;

    // The start of a series made after a removal of its instrument, no later than this collection's
    // time (data-model.md, "Resets and Gaps": a new sequence starts at or before its first point).
    // A synchronous series starts at its creation (metrics/sdk.md, "Start timestamps": "the time of
    // the first measurement"), unless it was made during this collection, after its time was taken.
    // An observable series, which its callback makes during a collection, and such a synchronous
    // one start where the specification starts an asynchronous series: at "the timestamp of the
    // collection interval prior to the first series measurement", the previous export (accepted or
    // not), or the instrument's start where that is later.
    private ulong OwnStart(ulong created) =>
        !_observed && created <= _now ? created : Math.Min(Math.Max(_state.StartUnixNano, _previous), _now);

    // The state of the series read at position, marked read by this export.
    private OtlpSeriesState Series(int position, TagSet tags, int attributesField)
    {
        OtlpSeriesState series = _state.Series(position, tags, attributesField, _scratch);
        _state.MarkRead(series);
        return series;
    }

    // Ends the point of series i begun at mark, and keeps it where this read was the series' last
    // (it was removed): the exports after it no longer read the series, and write this point again
    // until one carrying it is accepted.
    private void EndPoint(int point, int i, OtlpSeriesState series, int mark)
    {
        EndPoint(point);
        if (_snapshot.IsRemovedAt(i))
        {
            series.FinalPoint = output.WrittenSpan[mark..].ToArray();
        }
    }

    // Ends a Histogram's or ExponentialHistogram's data (an operation's too): the points owed by
    // series no longer read (WriteUnsent), then its temporality.
    private void EndHistogramData(int data, bool delta)
    {
        WriteUnsent(delta, asInt: false);
        EndSum(data, delta, monotonic: null);
    }

    // Keeps what an observable series' point was made of: if its callback stops reporting it, the
    // exports after write that point again (WriteUnsent) until one carrying it is accepted.
    private void KeepObserved(OtlpSeriesState series, double total, ulong start)
    {
        series.Observed = true;
        series.Pending.Value = total;
        series.PendingStartUnixNano = start;
        series.PendingTimeUnixNano = _now;
    }

    // Writes, into the instrument's data being written, the points series it no longer reads still
    // owe the receiver (OtlpInstrumentState.Unsent): a removed series' final point as it was kept, or
    // an observable series' last report, encoded once from what was kept of it, its change from the
    // committed reading where delta, its total where not.
    private void WriteUnsent(bool delta, bool asInt)
    {
        if (_state.Unsent() is not { } unsent)
        {
            return;
        }

        foreach (OtlpSeriesState series in unsent)
        {
            if (series.FinalPoint is { } kept)
            {
                output.Raw(kept);
                DataPoints++;
                continue;
            }

            Debug.Assert(series.Observed, "only an observable series owes a point it did not keep");
            double total = series.Pending.Value;
            double committed = series.Committed.Value;
            int mark = output.Position;
            int point = BeginNumberPoint(series, series.PendingStartUnixNano, series.PendingTimeUnixNano);
            WriteNumber(delta ? ChangeSinceCommitted(series, committed, total) : total, asInt);
            EndPoint(point);
            series.FinalPoint = output.WrittenSpan[mark..].ToArray();
        }
    }

    // A counter's, an up-down counter's or a gauge's values, of longs or doubles, or a callback's,
    // from the snapshot, with no reading per series: a delta's baseline is a field of the series'
    // state. The JIT compiles it apart for long and for double (value types), so its type tests
    // are constants, not branches per series. Only a counter's series keep exemplars.
    private void WriteNumbers<T>(Instrument instrument, ReadOnlySpan<T> totals, int kind, bool delta, bool monotonic, bool asInt)
        where T : struct, INumber<T>
    {
        InstrumentSnapshot snapshot = _snapshot;
        ulong start = Start(delta);
        int data = BeginData(kind);
        for (int i = 0; i < totals.Length; i++)
        {
            OtlpSeriesState series = Series(i, snapshot.TagsAt(i), OtlpFields.NumberAttributes);
            T value = delta ? Delta(series, totals[i]) : totals[i];
            if (delta && !_observed && value == T.Zero)
            {
                // Nothing added since the last accepted export: no delta point (see Unchanged).
                continue;
            }

            ulong seriesStart = StartAt(i, series, start);
            if (_observed)
            {
                KeepObserved(series, double.CreateTruncating(totals[i]), seriesStart);
            }

            int mark = output.Position;
            int point = BeginNumberPoint(series, seriesStart, _now);
            if (typeof(T) == typeof(long))
            {
                output.Fixed64(OtlpFields.NumberAsInt, unchecked((ulong)long.CreateTruncating(value)));
            }
            else
            {
                WriteNumber(double.CreateTruncating(value), asInt);
            }

            WriteExemplar(OtlpFields.NumberExemplars, snapshot.ExemplarAt(i), series, start, delta, asInt);
            EndPoint(point, i, series, mark);
        }

        WriteUnsent(delta, asInt);
        if (kind == OtlpFields.MetricSum)
        {
            EndSum(data, delta, monotonic);
        }
        else
        {
            EndData(data);
        }
    }

    // A counter's change since the last accepted export: its whole total where none was accepted,
    // or where it reads lower than then (it was reset: an observed source restarted). The total
    // becomes the export's pending baseline, a long counter's as a count, a double one's as a value.
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private T Delta<T>(OtlpSeriesState series, T total)
        where T : struct, INumber<T>
    {
        bool longs = typeof(T) == typeof(long);
        T committed = longs ? T.CreateTruncating(series.Committed.Count) : T.CreateTruncating(series.Committed.Value);
        T value = ChangeSinceCommitted(series, committed, total);
        series.Pending = longs ? new OtlpSeriesValue { Count = long.CreateTruncating(total) } : new OtlpSeriesValue { Value = double.CreateTruncating(total) };
        BeginExemplars(series);
        return value;
    }

    // The change of a total since the last accepted export's (committed): the whole total where
    // none was accepted, or where it reads lower than then (it was reset).
    private static T ChangeSinceCommitted<T>(OtlpSeriesState series, T committed, T total)
        where T : struct, INumber<T> =>
        series.HasCommitted && committed <= total ? total - committed : total;

    // A gauge of double values (or a callback's), from the snapshot.
    private void WriteDoubleGauge(Instrument instrument, bool asInt)
    {
        InstrumentSnapshot snapshot = _snapshot;
        ReadOnlySpan<double> values = snapshot.DoubleValues;
        ulong start = Start(delta: false);
        int gauge = BeginData(OtlpFields.MetricGauge);
        for (int i = 0; i < values.Length; i++)
        {
            OtlpSeriesState series = Series(i, snapshot.TagsAt(i), OtlpFields.NumberAttributes);
            if (_observed)
            {
                KeepObserved(series, values[i], start);
            }

            int mark = output.Position;
            int point = BeginNumberPoint(series, start, _now);
            WriteNumber(values[i], asInt);
            EndPoint(point, i, series, mark);
        }

        WriteUnsent(delta: false, asInt);
        EndData(gauge);
    }

    private void WriteNumber(double value, bool asInt)
    {
        if (asInt)
        {
            output.Fixed64(OtlpFields.NumberAsInt, unchecked((ulong)(long)value));
        }
        else
        {
            output.Double(OtlpFields.NumberAsDouble, value);
        }
    }

    private int BeginNumberPoint(OtlpSeriesState series, ulong start, ulong time)
    {
        int point = output.BeginMessage(OtlpFields.DataPoints);
        output.Raw(series.Attributes);
        output.Fixed64(OtlpFields.NumberStartTime, start);
        output.Fixed64(OtlpFields.NumberTime, time);
        return point;
    }

    private int BeginHistogramPoint(OtlpSeriesState series, ulong start, long count, double sum)
    {
        int point = output.BeginMessage(OtlpFields.DataPoints);
        output.Raw(series.Attributes);
        output.Fixed64(OtlpFields.HistogramStartTime, start);
        output.Fixed64(OtlpFields.HistogramTime, _now);
        output.Fixed64(OtlpFields.HistogramCount, (ulong)count);
        WriteSum(OtlpFields.HistogramSum, sum);
        return point;
    }

    // A histogram point's optional sum, left out where it is NaN: no sum of values recorded (a
    // histogram refuses NaN), but +∞ less +∞, a delta after an infinite record, or +∞ and -∞
    // recorded both. Left out, the point claims no sum; written, a backend would sum or average NaN for good.
    private void WriteSum(int field, double sum)
    {
        if (!double.IsNaN(sum))
        {
            output.Double(field, sum);
        }
    }

    private void EndPoint(int point)
    {
        output.EndMessage(point);
        DataPoints++;
    }

    // A Sum, Gauge, Histogram or ExponentialHistogram: most of a Metric, so where the last export's
    // length takes as many bytes as this one's, its content is not moved (ProtobufBuffer.BeginMessage(int, int)).
    private int BeginData(int kind) => output.BeginMessage(kind, _state.DataLength);

    private void EndData(int data) => _state.DataLength = output.EndMessage(data, _state.DataLength);

    // Ends a Sum, Histogram or ExponentialHistogram: its temporality, and for a sum whether it is monotonic.
    private void EndSum(int data, bool delta, bool? monotonic)
    {
        output.Varint(OtlpFields.AggregationTemporality, delta ? (ulong)OtlpFields.TemporalityDelta : OtlpFields.TemporalityCumulative);
        if (monotonic is true)
        {
            output.Varint(OtlpFields.SumIsMonotonic, 1);
        }

        EndData(data);
    }

    private void WriteBucketCounts(ReadOnlySpan<long> counts, IReadOnlyList<long>? baseline)
    {
        Debug.Assert(baseline is null || baseline.Count == counts.Length);
        output.BeginPackedFixed64(OtlpFields.HistogramBucketCounts, counts.Length);
        for (int j = 0; j < counts.Length; j++)
        {
            output.Fixed64Value((ulong)(counts[j] - (baseline?[j] ?? 0)));
        }
    }

    // The positive buckets, less the baseline's brought down to this reading's scale (a reading's
    // scale only falls: its buckets only widen), with empty buckets at either end left out.
    private void WritePositiveBuckets(ExponentialHistogramReading reading, ExponentialHistogramReading? baseline)
    {
        IReadOnlyList<long> counts = reading.PositiveBucketCounts;
        if (counts.Count == 0)
        {
            return;
        }

        if (_deltaBuckets.Length < counts.Count)
        {
            _deltaBuckets = new long[Math.Max(counts.Count, 2 * _deltaBuckets.Length)];
        }

        Span<long> delta = _deltaBuckets.AsSpan(0, counts.Count);
        for (int j = 0; j < counts.Count; j++)
        {
            delta[j] = counts[j];
        }

        if (baseline is not null)
        {
            int shift = baseline.Scale - reading.Scale;
            Debug.Assert(shift >= 0, "A series' reading never gains scale.");
            for (int j = 0; j < baseline.PositiveBucketCounts.Count; j++)
            {
                int at = ((baseline.PositiveOffset + j) >> shift) - reading.PositiveOffset;
                if ((uint)at < (uint)delta.Length)
                {
                    delta[at] -= baseline.PositiveBucketCounts[j];
                }
            }
        }

        int first = delta.IndexOfAnyExcept(0L);
        if (first < 0)
        {
            return;
        }

        int last = delta.LastIndexOfAnyExcept(0L);
        int positive = output.BeginMessage(OtlpFields.ExponentialPositive);
        output.ZigZag32(OtlpFields.BucketsOffset, reading.PositiveOffset + first);
        int packed = output.BeginMessage(OtlpFields.BucketsCounts);
        for (int j = first; j <= last; j++)
        {
            output.Varint((ulong)delta[j]);
        }

        output.EndMessage(packed);
        output.EndMessage(positive);
    }

    // A delta series' exemplars start where its committed ones end: none written yet by this export.
    private static void BeginExemplars(OtlpSeriesState series) =>
        series.PendingExemplarUnixNano = series.HasCommitted ? series.CommittedExemplarUnixNano : 0;

    // Writes an exemplar of series' point. A delta point leaves out one taken before its start and,
    // as a reservoir keeps its newest exemplars from export to export, one no newer than the newest
    // an accepted export of the series carried: that export counted its measurement (a series'
    // exemplars are read before its values), so each exemplar goes with one accepted delta point.
    private void WriteExemplar(int field, Exemplar? exemplar, OtlpSeriesState series, ulong start, bool delta, bool asInt)
    {
        if (exemplar is not { } e)
        {
            return;
        }

        ulong time = UnixNano(e.Timestamp);
        if (delta)
        {
            if (time < start || (series.HasCommitted && time <= series.CommittedExemplarUnixNano))
            {
                return;
            }

            series.PendingExemplarUnixNano = Math.Max(series.PendingExemplarUnixNano, time);
        }

        int message = output.BeginMessage(field);
        output.Fixed64(OtlpFields.ExemplarTime, time);
        if (asInt)
        {
            output.Fixed64(OtlpFields.ExemplarAsInt, unchecked((ulong)(long)e.Value));
        }
        else
        {
            output.Double(OtlpFields.ExemplarAsDouble, e.Value);
        }

        // Kept outside a trace (ExemplarFilter.AlwaysOn): no span or trace id, as OTLP allows.
        if (e.TraceId != default)
        {
            Span<byte> id = stackalloc byte[16];
            e.SpanId.CopyTo(id[..8]);
            output.Bytes(OtlpFields.ExemplarSpanId, id[..8]);
            e.TraceId.CopyTo(id);
            output.Bytes(OtlpFields.ExemplarTraceId, id);
        }

        output.EndMessage(message);
    }

    // Reads the instrument into the snapshot, once. An observable instrument's callback is the
    // service's code: whatever it throws is that instrument's failure, not the export's.
    private bool TryRead(Instrument instrument)
    {
        try
        {
            instrument.ReadInto(_snapshot);
            return true;
        }
        catch (InvalidOperationException e) when (instrument is ObservableInstrument)
        {
            _callbackFailures.Log(instrument, e);
            return false;
        }
    }

    /// <summary>Nanoseconds since the Unix epoch, OTLP's time unit.</summary>
    public static ulong UnixNano(DateTimeOffset time) => (ulong)(time.UtcTicks - DateTime.UnixEpoch.Ticks) * NanosPerTick;

    [LoggerMessage(EventId = 20, Level = LogLevel.Warning, Message = "The observable instrument '{Instrument}' is left out of this OTLP export: its callback failed with {ExceptionType}: {ExceptionMessage}. It is left out of every export its callback fails in; this cause is not logged again.")]
    private static partial void LogCallbackFailed(ILogger logger, Exception exception, string instrument, string exceptionType, string exceptionMessage);
}
