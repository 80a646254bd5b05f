using System.Diagnostics.Metrics;
using SdmInstrument = System.Diagnostics.Metrics.Instrument;

namespace ScalableMetrics.Exporter.Listening;

/// <summary>
/// An observable System.Diagnostics.Metrics instrument (<c>ObservableCounter&lt;T&gt;</c>,
/// <c>ObservableUpDownCounter&lt;T&gt;</c>, <c>ObservableGauge&lt;T&gt;</c>), read at collection:
/// the registry's observable instrument calls <see cref="ObserveLongs"/> or
/// <see cref="ObserveDoubles"/>, which has a listener of this instrument alone call its callback.
/// </summary>
/// <remarks>
/// <para>A listener of its own, because <c>MeterListener.RecordObservableInstruments</c> calls
/// every observable instrument it enabled and an instrument's <c>Observe</c> is not public: the
/// shared listener would run every callback of every listened meter for each one read. It is
/// created at the first collection and disposed on <see cref="Complete"/>, which also lets go of
/// the source instrument, so that a disposed meter can be collected; after that the instrument
/// reports nothing.</para>
/// <para>Thread-safe: the registry collects an observable instrument one collection at a time,
/// and <see cref="Complete"/> takes the same lock.</para>
/// </remarks>
internal sealed class ListenedObservable : ListenedInstrument
{
    private readonly Lock _lock = new();
    private readonly List<Measurement<long>> _longs = [];
    private readonly List<Measurement<double>> _doubles = [];
    private SdmInstrument? _source;
    private MeterListener? _listener;

    public ListenedObservable(SdmInstrument source, KeyValuePair<string, object?>[] sourceTags, ListenerDrops drops)
        : base(source.Name, sourceTags, drops)
    {
        _source = source;
    }

    public IEnumerable<Measurement<long>> ObserveLongs()
    {
        lock (_lock)
        {
            _longs.Clear();
            ObserveSource();
            return [.. _longs];
        }
    }

    public IEnumerable<Measurement<double>> ObserveDoubles()
    {
        lock (_lock)
        {
            _doubles.Clear();
            ObserveSource();
            return [.. _doubles];
        }
    }

    // Called by this instrument's own listener, inside ObserveSource, under the lock.
    public override void Record(long value, ReadOnlySpan<KeyValuePair<string, object?>> tags) =>
        _longs.Add(new Measurement<long>(value, WithSourceTags(tags)));

    public override void Record(double value, ReadOnlySpan<KeyValuePair<string, object?>> tags) =>
        _doubles.Add(new Measurement<double>(value, WithSourceTags(tags)));

    public override void Complete()
    {
        lock (_lock)
        {
            _source = null;
            _listener?.Dispose();
            _listener = null;
        }
    }

    private void ObserveSource()
    {
        if (_source is null)
        {
            return;
        }

        if (_listener is null)
        {
            SdmInstrument source = _source;
            _listener = new MeterListener
            {
                InstrumentPublished = (instrument, listener) =>
                {
                    if (ReferenceEquals(instrument, source))
                    {
                        listener.EnableMeasurementEvents(instrument, this);
                    }
                },
            };
            MeasurementDispatch.Attach(_listener);
            _listener.Start();
        }

        _listener.RecordObservableInstruments();
    }
}
