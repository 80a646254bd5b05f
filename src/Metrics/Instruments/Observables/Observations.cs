using System.Numerics;
using ScalableMetrics.Snapshots;

namespace ScalableMetrics.Instruments.Observables;

/// <summary>
/// What a callback of the library's own observable instruments reports into, one measurement at a
/// time (<see cref="Add"/>): the same series, checks and sums as a callback that returns
/// <see cref="System.Diagnostics.Metrics.Measurement{T}"/>s, without a measurement object, its copy
/// of the tags, or an enumerator per collection.
/// </summary>
/// <typeparam name="TValue"><see cref="long"/> or <see cref="double"/>.</typeparam>
/// <remarks>Valid only during the call the instrument makes at a collection; collections of one
/// instrument are serialized, so one is kept per instrument and reused. Not thread-safe.</remarks>
internal sealed class Observations<TValue>
    where TValue : struct, INumberBase<TValue>
{
    private readonly ObservedCallback<TValue> _callback;
    private ObservableInstrument? _kind;
    private InstrumentSnapshot? _snapshot;
    private long _round;

    /// <summary>The observations of <paramref name="callback"/>'s calls.</summary>
    internal Observations(ObservedCallback<TValue> callback)
    {
        _callback = callback;
    }

    /// <summary>Reports <paramref name="value"/> for the series named by <paramref name="tags"/>, as a measurement of them would.</summary>
    /// <param name="value">The value.</param>
    /// <param name="tags">The series' tags.</param>
    /// <exception cref="InvalidOperationException">Called outside the instrument's call.</exception>
    /// <exception cref="ArgumentException">The tags or the value break the instrument's rules (as a measurement's would).</exception>
    public void Add(TValue value, ReadOnlySpan<KeyValuePair<string, object?>> tags)
    {
        if (_kind is null || _snapshot is null)
        {
            throw new InvalidOperationException("Observations are taken only during the instrument's call.");
        }

        _callback.Report(_kind, _round, _snapshot, value, tags);
    }

    /// <summary>Starts a call: the collection's instrument, number and snapshot.</summary>
    internal void Begin(ObservableInstrument kind, long round, InstrumentSnapshot snapshot)
    {
        _kind = kind;
        _round = round;
        _snapshot = snapshot;
    }

    /// <summary>Ends the call: reports are refused until the next one.</summary>
    internal void End()
    {
        _kind = null;
        _snapshot = null;
    }
}
