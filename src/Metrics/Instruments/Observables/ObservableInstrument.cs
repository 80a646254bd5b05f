using ScalableMetrics.Instruments.Observables;
using ScalableMetrics.Snapshots;

namespace ScalableMetrics;

/// <summary>
/// An instrument whose values the service already keeps: the registry calls its callback at every
/// collection (a scrape) and exports what it reports, rather than being told of each change.
/// The base of <see cref="ObservableCounter"/>, <see cref="ObservableUpDownCounter"/> and
/// <see cref="ObservableGauge"/>, after OpenTelemetry's asynchronous instruments.
/// </summary>
/// <remarks>
/// <para>Thread-safe: collections of one instrument are serialized, so its callback is never
/// called twice at once by the registry.</para>
/// <para>A collection exports the series the callback reported in that call, each once: where the
/// callback reports one tag set more than once, or several tag sets fold into the overflow series
/// (past <see cref="MetricRegistry.MaxSeriesPerInstrument"/>, the one cardinality limit), a counter
/// or up-down counter exports their sum and a gauge the last one reported. A series the callback
/// stops reporting is no longer exported.</para>
/// <para><see cref="long"/> values are exported as Prometheus does every value, as a
/// <see cref="double"/>: exactly up to 2^53.</para>
/// </remarks>
public abstract class ObservableInstrument : Instrument
{
    private readonly ObservedValues _values;
    private readonly Lock _collectLock = new();
    private long _round;

    private protected ObservableInstrument(string name, string? unit, string? description, ObservedValues values, bool sumsWithinCollection)
        : base(name, unit, description)
    {
        _values = values;
        SumsWithinCollection = sumsWithinCollection;
    }

    /// <summary>Whether the callback reports <see cref="double"/> values (otherwise <see cref="long"/> ones).</summary>
    public bool IsFloatingPoint => _values.IsFloatingPoint;

    /// <summary>The number of series the callback reported in the latest collection that succeeded, the overflow series included where it took a report; 0 before one.</summary>
    public override int SeriesCount => _values.SeriesCount;

    /// <summary>Whether values reported for one series in one collection add up (counters) or replace each other (gauges).</summary>
    internal bool SumsWithinCollection { get; }

    /// <summary>Calls the callback and returns what it reported.</summary>
    /// <returns>One reading per series the callback reported in this call, in no particular order.</returns>
    /// <exception cref="InvalidOperationException">The callback threw, reported a tag set that breaks the rules of
    /// <see cref="TagSet.Create"/>, or a value the instrument's kind does not take (a negative or NaN counter value;
    /// a NaN up-down counter value); the inner exception says which. Nothing of this call is exported.</exception>
    public IReadOnlyList<DoubleReading> Collect() => SnapshotReadings.Doubles(this);

    /// <inheritdoc/>
    /// <remarks>Calls the callback, serialized with every other collection of the instrument, and
    /// reads each series it reported, keyed by the series (the same object at every collection that
    /// reports it); a read that is no collection calls it too, as its reports are the series.</remarks>
    internal override void ReadInto(InstrumentSnapshot snapshot, bool collection)
    {
        lock (_collectLock)
        {
            long round = ++_round;
            try
            {
                _values.ObserveInto(this, round, snapshot);
            }
            catch (Exception e) when (e is not OutOfMemoryException)
            {
                throw new InvalidOperationException($"The callback of the {GetType().Name} {ExceptionText.Quote(Name)} failed at collection; nothing it reported in this call is exported: {e.Message}", e);
            }
        }
    }

    /// <summary>
    /// Throws what a collection throws for a report of <paramref name="value"/> under
    /// <paramref name="tags"/> (the checks of its value and of its tags, as the callback's reports
    /// meet them), for a caller that takes reports before the callback returns them and would
    /// rather leave one out than have it fail the whole collection (a listened meter's instrument).
    /// </summary>
    /// <param name="value">The value reported, as a <see cref="double"/>.</param>
    /// <param name="tags">The tags it is reported under.</param>
    /// <exception cref="ArgumentOutOfRangeException">The value is one this kind does not take (<see cref="CheckValue"/>).</exception>
    /// <exception cref="ArgumentException">The tags break the rules of <see cref="TagSet.Create"/> or the registry's tag limits.</exception>
    internal void CheckReport(double value, ReadOnlySpan<KeyValuePair<string, object?>> tags)
    {
        CheckValue(value);
        _values.CheckTags(tags);
    }

    /// <summary>Throws <see cref="ArgumentOutOfRangeException"/> for a value this kind does not take: none
    /// here, as a gauge takes any value (NaN and infinities are exported as Prometheus writes them).</summary>
    /// <param name="value">A value the callback reported.</param>
    internal virtual void CheckValue(double value)
    {
    }
}
