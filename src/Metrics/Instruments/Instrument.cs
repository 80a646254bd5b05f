using ScalableMetrics.Instruments;
using ScalableMetrics.Naming;

using ScalableMetrics.Snapshots;

namespace ScalableMetrics;

/// <summary>
/// A named instrument of a <see cref="MetricRegistry"/>: its identity and description, shared by
/// every kind. Thread-safe.
/// </summary>
public abstract class Instrument
{
    private protected Instrument(string name, string? unit, string? description)
    {
        InstrumentNames.Validate(name, unit);
        Name = name;
        Unit = unit;
        Description = description;
    }

    /// <summary>The instrument's name, following OpenTelemetry's instrument name syntax (e.g. <c>webapi.requests</c>).</summary>
    public string Name { get; }

    /// <summary>The unit of its values in UCUM, as OpenTelemetry writes units (e.g. <c>{request}</c>, <c>s</c>, <c>By</c>), or <see langword="null"/>.</summary>
    public string? Unit { get; }

    /// <summary>A human-readable description, or <see langword="null"/>.</summary>
    public string? Description { get; }

    /// <summary>
    /// When the instrument was created: the start of every one of its series' cumulative values
    /// (a series not yet recorded into holds zero from then on), which OpenMetrics exposes as
    /// <c>_created</c>. Per instrument, not per series: a series holds nothing before its first
    /// record, so its count since this time is its count since its own first record.
    /// </summary>
    /// <remarks>Set only by tests that need a fixed start (golden bytes); nothing changes it once a reader has read it.</remarks>
    internal DateTimeOffset CreatedAt { get; set; } = DateTimeOffset.UtcNow;

    /// <summary>The name the instrument was asked for under: <see cref="Name"/>, unless a view renamed it
    /// (<see cref="MetricView.Name"/>). Set by the registry when it creates the instrument.</summary>
    internal string AskedName
    {
        get => field ?? Name;
        set;
    }

    /// <summary>The most series it keeps before its overflow series: the registry's
    /// <see cref="MetricRegistryOptions.MaxSeriesPerInstrument"/> or its view's <see cref="MetricView.CardinalityLimit"/>.
    /// Set by the registry when it creates the instrument.</summary>
    internal int MaxSeries { get; set; }

    /// <summary>Idle expiry: the collections without a change after which a series of it is removed
    /// (<see cref="MetricRegistryOptions.RemoveSeriesIdleForCollections"/>); 0: never. Set by the
    /// registry when it creates the instrument.</summary>
    internal int IdleCollections { get; set; }

    /// <summary>Its removed series: those not reclaimed yet, those reclaimed, and what was added to them after their final export (tests, diagnostics); none for a kind without arena memory.</summary>
    internal virtual (int Retired, long Reclaimed, long LateAdds) Removals => default;

    /// <summary>Whether the instrument has its overflow series: a tag set came past <see cref="MaxSeries"/> and was
    /// recorded there. Here the series count past the limit: an observable instrument's series, once reported, stay.</summary>
    internal virtual bool HasOverflowSeries => SeriesCount > MaxSeries;

    /// <summary>The number of series (distinct tag sets) the instrument has recorded into.</summary>
    public abstract int SeriesCount { get; }

    /// <summary>
    /// Hands the instrument to <paramref name="sink"/>'s method for its kind: the one place a
    /// kind is told apart, so that a consumer implements <see cref="IInstrumentSink"/> rather than
    /// switching on types (and a new kind does not compile until every consumer takes it).
    /// </summary>
    /// <param name="sink">What takes the instrument.</param>
    internal abstract void Accept(IInstrumentSink sink);

    /// <summary>
    /// Reads every series of the instrument once into <paramref name="snapshot"/>, the reader's
    /// reusable columns, as one collection of it: what <c>Collect()</c>, the Prometheus scrape, OTLP
    /// and the OpenTelemetry bridge all read. A partitioned instrument's series are summed over their
    /// partitions in one pass, exemplars first (so that every exemplar's add is in the value read
    /// after it), serialized with every other read of the registry; a gauge's series that have a
    /// value are read one by one; an observable instrument's callback is called.
    /// </summary>
    /// <param name="snapshot">The reader's columns, valid until its next read into them.</param>
    /// <exception cref="InvalidOperationException">An observable instrument's callback failed (see <see cref="ObservableInstrument.Collect"/>); the snapshot holds nothing of it.</exception>
    internal void ReadInto(InstrumentSnapshot snapshot) => ReadInto(snapshot, collection: true);

    /// <summary>
    /// Reads every series of the instrument once into <paramref name="snapshot"/>: as one collection
    /// of it where <paramref name="collection"/> (<see cref="ReadInto(InstrumentSnapshot)"/>); else
    /// the series' values as they are, and nothing more, for a reader whose reads are no collections
    /// (<c>RegistryMeterPublisher</c>, a <c>MeterListener</c>'s view; docs/series-lifecycle.md): no
    /// exemplars read (a reservoir's read starts its sampling over), a series marked for removal read
    /// (a gauge's own value, not kept as its last export's) and left for the collection that removes
    /// it, and no idle expiry counted. An observable instrument's callback is called either way: what
    /// it reports is what its series are.
    /// </summary>
    /// <param name="snapshot">The reader's columns, valid until its next read into them.</param>
    /// <param name="collection">Whether the read is a collection of the instrument.</param>
    /// <exception cref="InvalidOperationException">An observable instrument's callback failed (see <see cref="ObservableInstrument.Collect"/>); the snapshot holds nothing of it.</exception>
    internal abstract void ReadInto(InstrumentSnapshot snapshot, bool collection);

    /// <inheritdoc/>
    public override string ToString() => $"{GetType().Name} {Name}";
}
