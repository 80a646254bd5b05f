using System.Diagnostics.Metrics;
using Microsoft.Extensions.Logging;
using ScalableMetrics.Recording;
using SdmInstrument = System.Diagnostics.Metrics.Instrument;

namespace ScalableMetrics.Exporter.Listening;

/// <summary>
/// The callback of one registry observable instrument: it observes every System.Diagnostics.Metrics
/// observable instrument of that name, kind, value type and unit that a listened meter (one name
/// and version, so one registry) has, each through a listener of its own, and reports what they
/// all report.
/// </summary>
/// <remarks>
/// <para>A meter disposed and created again, as tests, plugins and per-tenant scopes do, publishes
/// its observable instruments again: each joins the group its name already has (<see cref="Join"/>),
/// where the registry would refuse a second instrument of that name, so that the new callback is
/// observed and the disposed meter's, which leaves the group when its measurements complete, is
/// not. Two live meters of one name and version each keep their observable instruments in the
/// group: a tag set both report is summed for counters and last-wins for gauges, as the registry
/// does for one callback that reports it twice.</para>
/// <para>Observed one of two ways. For <c>AddMeter</c>, through a listener of the group's own,
/// for its instruments only. For the instruments .NET's metrics rules enable for the
/// <c>ScalableMetricsListener</c>, through that listener's source
/// (<see cref="ObservablePull"/>), as <c>IMetricsListener</c>'s contract has it: one pull runs
/// every callback the rules enabled, and serves each group once.</para>
/// <para>A callback that throws is handled as the rules' listener handles it, wherever another
/// callback of the group reported: the group's own listener, like that listener's source, runs
/// every callback of the group and then throws an <see cref="AggregateException"/> of the ones
/// that threw, without saying whose, so the other callbacks' reports are kept (what a throwing
/// callback reported before it threw among them) and the failure is logged once per cause
/// (<see cref="CallbackFailureLog"/>), naming the instrument and its meter. Where every callback of
/// the group threw (always so when a group of one meter throws), the failure is the instrument's, as
/// that of one callback of the registry is: the collection fails, so that the scrape leaves the
/// instrument out and logs it by its name, and the series of the last collection that succeeded
/// are kept.</para>
/// <para>Each report is checked where it is recorded, with the registry instrument's own checks of
/// a report (<see cref="ObservableInstrument.CheckReport"/>): one the registry would refuse (a
/// negative or NaN counter value, a NaN up-down counter value, a bad tag) is dropped, counted and
/// logged once per instrument (<see cref="ListenerDrops"/>), as a refused measurement of any other
/// listened instrument is, and the callback's other reports are kept. Reported as they are, one
/// would fail the registry's collection of the whole group.</para>
/// <para>Thread-safe: the registry never collects one instrument twice at once, and joins and
/// departures take the same lock; in a pull, the buffers are written and read under the pull's lock.</para>
/// </remarks>
internal sealed partial class ListenedObservable
{
    private readonly Lock _lock = new();
    private readonly List<Source> _sources = [];
    private readonly List<Measurement<long>> _longs = [];
    private readonly List<Measurement<double>> _doubles = [];
    private readonly Type _type;
    private readonly string? _unit;
    private readonly ObservablePull? _pull;
    private readonly ObservableInstrument _registered;

    // Null under a pull, which logs its callbacks' failures itself.
    private readonly CallbackFailureLog? _failures;
    private MeterListener? _listener;

    /// <summary>A group for observable instruments shaped as <paramref name="first"/>, which is not yet in it,
    /// and the registry instrument it reports to.</summary>
    /// <param name="first">The first instrument of the group.</param>
    /// <param name="pull">The rules' listener source that observes the group; null for a listener of the group's own.</param>
    /// <param name="logger">Where a listener of the group's own logs the failures of callbacks whose group reports nonetheless.</param>
    /// <param name="register">Creates the registry instrument whose callback is the group's
    /// <see cref="ObserveLongs"/> or <see cref="ObserveDoubles"/>; called once, here.</param>
    /// <exception cref="ArgumentException">The registry refuses the instrument (thrown by <paramref name="register"/>).</exception>
    /// <exception cref="InvalidOperationException">The registry holds its most instruments (thrown by <paramref name="register"/>).</exception>
    public ListenedObservable(SdmInstrument first, ObservablePull? pull, ILogger logger, Func<ListenedObservable, ObservableInstrument> register)
    {
        _pull = pull;
        _type = first.GetType();
        _unit = first.Unit;
        string instrument = first.Name;
        string meter = first.Meter.Name;
        _failures = pull is null ? new CallbackFailureLog(cause => LogCallbackFailed(logger, cause, instrument, meter, cause.GetType().Name, cause.Message)) : null;
        _registered = register(this);
    }

    /// <summary>Whether <paramref name="instrument"/> is of this group's kind, value type and unit,
    /// so that the registry instrument can report it (the name is the caller's key).</summary>
    public bool Fits(SdmInstrument instrument) =>
        instrument.GetType() == _type && string.Equals(instrument.Unit, _unit, StringComparison.Ordinal);

    /// <summary>Adds <paramref name="instrument"/>, with its own tags, to the instruments observed;
    /// returns the listener state through which it leaves the group when its measurements complete.</summary>
    public ListenedInstrument Join(SdmInstrument instrument, KeyValuePair<string, object?>[] sourceTags, ListenerDrops drops)
    {
        var source = new Source(this, instrument, sourceTags, drops);
        lock (_lock)
        {
            _sources.Add(source);
            _listener?.EnableMeasurementEvents(instrument, source);
        }

        return source;
    }

    /// <summary>The pull this group last took its reports of (see <see cref="ObservablePull"/>).</summary>
    internal long TakenPull { get; set; }

    /// <summary>The pull the buffers hold the reports of (see <see cref="ObservablePull"/>).</summary>
    internal long FilledPull { get; set; }

    /// <summary>What the group's instruments report now, integer-valued.</summary>
    public IEnumerable<Measurement<long>> ObserveLongs() => Observe(_longs);

    /// <summary>What the group's instruments report now, floating-point-valued.</summary>
    public IEnumerable<Measurement<double>> ObserveDoubles() => Observe(_doubles);

    // A copy of one of the buffers, filled by the pull or, with a listener of the group's own, by an observation now.
    private IEnumerable<Measurement<T>> Observe<T>(List<Measurement<T>> reports)
        where T : struct
    {
        if (_pull is not null)
        {
            return _pull.Take(this, reports);
        }

        lock (_lock)
        {
            reports.Clear();
            Observe();
            return [.. reports];
        }
    }

    // Under the lock. The group's own listener is started on the first observation, so that no
    // callback runs before the registry asks for one.
    private void Observe()
    {
        if (_sources.Count == 0)
        {
            return;
        }

        if (_listener is null)
        {
            _listener = new MeterListener();
            MeasurementDispatch.Attach(_listener);
            _listener.Start();
            foreach (Source source in _sources)
            {
                _listener.EnableMeasurementEvents(source.Instrument, source);
            }
        }

        try
        {
            _listener.RecordObservableInstruments();
        }
        catch (AggregateException e) when (e.InnerExceptions.Count < _sources.Count)
        {
            // Every callback has run, and one at least did not throw: its reports are in, and the
            // failure is the throwing callbacks' own, not the group's (see remarks). Where every
            // callback threw, the failure goes on to the registry: the instrument's collection fails.
            _failures!.Log(e);
        }
    }

    /// <summary>Empties the buffers, for the reports of another pull; under the pull's lock.</summary>
    internal void ClearReports()
    {
        _longs.Clear();
        _doubles.Clear();
    }

    private void Leave(Source source)
    {
        lock (_lock)
        {
            _sources.Remove(source);
            _listener?.DisableMeasurementEvents(source.Instrument);
            if (_sources.Count == 0)
            {
                _listener?.Dispose();
                _listener = null;
            }
        }
    }

    [LoggerMessage(EventId = 24, Level = LogLevel.Warning, Message = "A callback of the observable instrument '{Instrument}' of one of the live meters '{Meter}' threw {ExceptionType}: {ExceptionMessage}. Those meters (one name and version) share the instrument and their callbacks run together, so which one threw is not known; the others' reports are scraped as usual. This cause is not logged again.")]
    private static partial void LogCallbackFailed(ILogger logger, Exception exception, string instrument, string meter, string exceptionType, string exceptionMessage);

    /// <summary>One observable instrument of the group: the state of both listeners, the host's
    /// (whose measurements-completed call makes it leave) and the group's (which records its reports).</summary>
    private sealed class Source(ListenedObservable group, SdmInstrument instrument, KeyValuePair<string, object?>[] sourceTags, ListenerDrops drops)
        : ListenedInstrument(instrument.Name, drops)
    {
        public SdmInstrument Instrument { get; } = instrument;

        // Called by the group's listener, inside Observe, under the group's lock; or by the rules'
        // listener, inside a pull, under the pull's lock (a report outside either is left out,
        // uncounted: it is no measurement of ours).
        public override void Record(long value, ReadOnlySpan<KeyValuePair<string, object?>> tags)
        {
            if (group._pull is null || group._pull.Receive(group))
            {
                ReadOnlySpan<KeyValuePair<string, object?>> reported = TagScratch.WithSource(tags, sourceTags);
                if (IsTaken(value, reported))
                {
                    group._longs.Add(new Measurement<long>(value, reported));
                }
            }
        }

        public override void Record(double value, ReadOnlySpan<KeyValuePair<string, object?>> tags)
        {
            if (group._pull is null || group._pull.Receive(group))
            {
                ReadOnlySpan<KeyValuePair<string, object?>> reported = TagScratch.WithSource(tags, sourceTags);
                if (IsTaken(value, reported))
                {
                    group._doubles.Add(new Measurement<double>(value, reported));
                }
            }
        }

        public override void Complete() => group.Leave(this);

        // Whether the registry takes a report of value under tags (the source's among them), by its
        // own checks of a report; where not, the report is dropped as any refused measurement is.
        private bool IsTaken(double value, ReadOnlySpan<KeyValuePair<string, object?>> tags)
        {
            try
            {
                group._registered.CheckReport(value, tags);
                return true;
            }
            catch (ArgumentOutOfRangeException e)
            {
                Drop("the registry refuses its value", e);
                return false;
            }
            catch (ArgumentException e)
            {
                Drop(TagsRefused, e);
                return false;
            }
        }
    }
}
