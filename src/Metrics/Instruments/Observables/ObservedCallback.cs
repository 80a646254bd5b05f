using System.Diagnostics.Metrics;
using System.Numerics;
using ScalableMetrics.SeriesTables;
using ScalableMetrics.Snapshots;
using ScalableMetrics.Tags;

namespace ScalableMetrics.Instruments.Observables;

/// <summary>
/// A callback of <typeparamref name="TValue"/> values and the series it reported in the latest
/// collection: the collection of every observable instrument, of either value type.
/// </summary>
/// <remarks>
/// The series limit applies to the tag sets the callback reports in one collection, as
/// OpenTelemetry's SDK reclaims the unused points of asynchronous instruments: after a collection
/// that succeeds, every series it did not report is removed from the table, so that a callback
/// whose tag sets change over time (per connection, per job) is never folded into the overflow
/// series for the tag sets it reported before. A tag set reported in consecutive collections stays
/// one series (the same object, its start and an exporter's delta baseline kept); one that comes
/// back after a collection that did not report it is a new series, from the value reported then.
/// After a collection that fails (the callback threw, or reported what the instrument refuses),
/// which is not exported, the series it created are removed and the rest are kept as the latest
/// successful collection left them, so that its tag sets count toward no later collection's limit
/// and the next collection still finds the series an exporter keeps baselines for.
/// The table holds room for twice the limit: the series of the previous collection and this one's
/// new ones, so that a collection whose tag sets all differ from the last one's is limited by its
/// own count alone.
/// </remarks>
/// <typeparam name="TValue"><see cref="long"/> or <see cref="double"/>.</typeparam>
internal sealed class ObservedCallback<TValue> : ObservedValues
    where TValue : struct, INumberBase<TValue>
{
    // The callback, reporting into the kept Observations: the library's own report directly
    // (nothing allocated per measurement); a public callback's measurements are reported one by one.
    private readonly Action<Observations<TValue>> _report;
    private readonly Observations<TValue> _observations;
    private readonly Func<TValue, TValue, TValue> _saturatingAdd;
    private readonly SeriesTable<ObservedSeries<TValue>> _series;
    private readonly int _maxSeries;

    // Series of the collection under way, the overflow series aside: the limit's count.
    private int _reportedInRound;

    // Series the latest successful collection reported, the overflow series included.
    private int _seriesCount;

    /// <summary>Creates the values of <paramref name="observe"/>, none reported yet.</summary>
    /// <param name="observe">The callback.</param>
    /// <param name="saturatingAdd">How two reports of one series in one collection add up.</param>
    /// <param name="maxSeries">The most series it creates before the overflow series.</param>
    /// <param name="tagLimits">What a reported tag set may hold.</param>
    public ObservedCallback(Func<IEnumerable<Measurement<TValue>>> observe, Func<TValue, TValue, TValue> saturatingAdd, int maxSeries, TagLimits tagLimits)
        : this(observations => ReportAll(observe, observations), saturatingAdd, maxSeries, tagLimits)
    {
    }

    /// <summary>Creates the values of <paramref name="report"/>, a callback that reports each measurement into the <see cref="Observations{TValue}"/> it is handed.</summary>
    /// <param name="report">The callback.</param>
    /// <param name="saturatingAdd">How two reports of one series in one collection add up.</param>
    /// <param name="maxSeries">The most series it creates before the overflow series.</param>
    /// <param name="tagLimits">What a reported tag set may hold.</param>
    public ObservedCallback(Action<Observations<TValue>> report, Func<TValue, TValue, TValue> saturatingAdd, int maxSeries, TagLimits tagLimits)
    {
        _report = report;
        _observations = new Observations<TValue>(this);
        _saturatingAdd = saturatingAdd;
        _maxSeries = maxSeries;

        // Room for the previous collection's series and as many new ones (see remarks).
        _series = new SeriesTable<ObservedSeries<TValue>>((int)Math.Min(2L * maxSeries, int.MaxValue), tagLimits, static tags => new ObservedSeries<TValue>(tags));
    }

    /// <inheritdoc/>
    public override bool IsFloatingPoint => typeof(TValue) == typeof(double);

    /// <inheritdoc/>
    public override int SeriesCount => Volatile.Read(ref _seriesCount);

    /// <inheritdoc/>
    public override void ObserveInto(ObservableInstrument kind, long round, InstrumentSnapshot snapshot)
    {
        // The series that exist before the call: those it creates come after them (see
        // RemoveCreated).
        int existing = _series.Count;
        snapshot.BeginOwnSeries(existing, longStride: 0, doubles: true);
        _observations.Begin(kind, round, snapshot);
        _reportedInRound = 0;
        bool reported = false;
        try
        {
            _report(_observations);
            reported = true;
        }
        finally
        {
            _observations.End();
            if (!reported)
            {
                // A failed call is not exported: the series it created go, so that they count
                // toward no later call's limit; the series it did not reach stay, as removing them
                // would make the next collection's series new ones (an exporter's baselines lost).
                RemoveCreated(existing, snapshot);
            }
        }

        RemoveUnreported(round, snapshot);
        Volatile.Write(ref _seriesCount, snapshot.Count);

        // Long values are exported as Prometheus exports every value, as doubles.
        Span<double> values = snapshot.Doubles();
        for (int i = 0; i < values.Length; i++)
        {
            values[i] = double.CreateTruncating(((ObservedSeries<TValue>)snapshot.KeyAt(i)).Value);
        }
    }

    /// <inheritdoc/>
    /// <remarks>The check of <see cref="Report"/>'s lookup of a tag set it has not met: the table's own.</remarks>
    public override void CheckTags(ReadOnlySpan<KeyValuePair<string, object?>> tags) => _series.Validate(tags);

    /// <summary>Takes one report of the call under way: its series added to the snapshot the first time in the call (the overflow series past the limit's count of series in the call), its value kept or added.</summary>
    internal void Report(ObservableInstrument kind, long round, InstrumentSnapshot snapshot, TValue value, ReadOnlySpan<KeyValuePair<string, object?>> tags)
    {
        kind.CheckValue(double.CreateTruncating(value));
        ObservedSeries<TValue> series = _series.GetOrAdd(tags);
        if (series.Round != round)
        {
            // A series first reported in this call: one more of the limit's, or past it the
            // overflow series (which the table also returns once full). A tag set turned away
            // keeps its series unreported, removed at the end of the call.
            if (_reportedInRound < _maxSeries && !ReferenceEquals(series, _series.OverflowIfAny))
            {
                _reportedInRound++;
            }
            else
            {
                series = _series.Overflow;
            }

            if (series.Round != round)
            {
                snapshot.AddSeriesGrowing(series);
            }
        }

        series.Value = series.Round == round && kind.SumsWithinCollection ? _saturatingAdd(series.Value, value) : value;
        series.Round = round;
    }

    // Removes every series the call of round did not report (the overflow series stays, unexported
    // until a call reports into it again): marked, then unlinked at once by a read of the table,
    // as no other thread writes it (collections are serialized, and only they report). Nothing is
    // done, and nothing allocated, where the call reported every series it has.
    private void RemoveUnreported(long round, InstrumentSnapshot snapshot)
    {
        if (_series.Count - (_series.OverflowIfAny is null ? 0 : 1) == _reportedInRound)
        {
            return;
        }

        foreach (ObservedSeries<TValue> series in _series.Series)
        {
            if (series.Round != round)
            {
                _series.Remove(series);
            }
        }

        _series.BeginRead(out long read);
        _series.EndRead(read, snapshot, idleCollections: 0);
    }

    // Removes the series a failed call created: the table's series past the first existing ones
    // (the overflow series aside, which Remove refuses), as a table's series are in creation order
    // and none is unlinked during a call (only RemoveUnreported and this method unlink, after it).
    // Marked, then unlinked at once by a read of the table, as RemoveUnreported does. Nothing is
    // done, and nothing allocated, where the call created no series.
    private void RemoveCreated(int existing, InstrumentSnapshot snapshot)
    {
        ArraySegment<ObservedSeries<TValue>> series = _series.Series;
        if (series.Count == existing)
        {
            return;
        }

        for (int i = existing; i < series.Count; i++)
        {
            _series.Remove(series[i]);
        }

        _series.BeginRead(out long read);
        _series.EndRead(read, snapshot, idleCollections: 0);
    }

    // A public callback's measurements, reported one by one.
    private static void ReportAll(Func<IEnumerable<Measurement<TValue>>> observe, Observations<TValue> observations)
    {
        foreach (Measurement<TValue> measurement in observe() ?? [])
        {
            observations.Add(measurement.Value, measurement.Tags);
        }
    }
}
