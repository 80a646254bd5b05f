using ScalableMetrics.Instruments;
using ScalableMetrics.Naming;

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
    internal DateTimeOffset CreatedAt { get; } = DateTimeOffset.UtcNow;

    /// <summary>The number of series (distinct tag sets) the instrument has recorded into.</summary>
    public abstract int SeriesCount { get; }

    /// <summary>
    /// Hands the instrument to <paramref name="sink"/>'s method for its kind: the one place a
    /// kind is told apart, so that a consumer implements <see cref="IInstrumentSink"/> rather than
    /// switching on types (and a new kind does not compile until every consumer takes it).
    /// </summary>
    /// <param name="sink">What takes the instrument.</param>
    internal abstract void Accept(IInstrumentSink sink);

    /// <inheritdoc/>
    public override string ToString() => $"{GetType().Name} {Name}";
}
