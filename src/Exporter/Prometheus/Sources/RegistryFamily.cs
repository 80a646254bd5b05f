using ScalableMetrics.Naming;

namespace ScalableMetrics.Exporter.Prometheus.Sources;

/// <summary>
/// How one registry instrument is exposed: its family's name, type and help, and the names its
/// samples are stored under. Computed once per instrument.
/// </summary>
/// <remarks>
/// The names come from the core's exported identity (<see cref="ExportedFamily"/>), the one place
/// that defines them and that the registry checks at creation. A counter (<see cref="PartitionedCounter"/>,
/// <see cref="PartitionedDoubleCounter"/>, <see cref="ObservableCounter"/>) is a counter family
/// named after its one sample <c>B_total</c> (the text format 0.0.4 names the family after its
/// sample, as OpenTelemetry's exporter does); an up-down counter or a gauge (partitioned, set or
/// observable) is a gauge <c>B</c>; a <see cref="PartitionedHistogram"/>, and an
/// <see cref="OperationData"/> with bucket boundaries, a histogram <c>B</c> of samples
/// <c>B_bucket</c>, <c>B_sum</c>, <c>B_count</c>; an <see cref="OperationData"/> without, a
/// summary <c>S</c> (the sanitized name and <c>_seconds</c>) of samples <c>S_sum</c> (seconds)
/// and <c>S_count</c> (operations).
/// </remarks>
internal sealed class RegistryFamily
{
    private RegistryFamily(Instrument instrument, string name, PrometheusType type, string[] sampleNames)
    {
        Instrument = instrument;
        Name = name;
        Type = type;
        Help = instrument.Description;
        SampleNames = sampleNames;
        Unit = ExportedNames.UnitSuffix(instrument.Unit);

        // An observable counter's values start wherever its callback's source started, which it does
        // not say. (The writer leaves _created out of the families of other types.)
        Created = instrument is ObservableInstrument ? null : instrument.CreatedAt;
    }

    public Instrument Instrument { get; }

    public string Name { get; }

    public PrometheusType Type { get; }

    public string? Help { get; }

    /// <summary>The unit as the name's suffix spells it (<c>seconds</c>, <c>bytes</c>), or empty: OpenMetrics' <c># UNIT</c>.</summary>
    public string Unit { get; }

    /// <summary>When the family's series started counting (OpenMetrics' <c>_created</c>, which the
    /// writer gives counters, histograms and summaries only): the instrument's creation, or null for
    /// observable instruments.</summary>
    public DateTimeOffset? Created { get; }

    /// <summary>Every name the instrument reserves (<see cref="ExportedFamily.ReservedNames"/>), so
    /// that no other meter's family can be written under one of them.</summary>
    public string[] SampleNames { get; }

    public static RegistryFamily Create(Instrument instrument)
    {
        ExportedFamily family;
        try
        {
            family = ExportedFamily.For(instrument);
        }
        catch (ArgumentException)
        {
            // A kind of instrument this exporter does not know: a core newer than the exporter.
            return new(instrument, string.Empty, PrometheusType.Unsupported, []);
        }

        return family.Kind switch
        {
            ExportedKind.Counter => new(instrument, family.SampleNames[0], PrometheusType.Counter, [.. family.ReservedNames]),
            ExportedKind.Gauge => new(instrument, family.Name, PrometheusType.Gauge, [.. family.ReservedNames]),
            ExportedKind.Histogram => new(instrument, family.Name, PrometheusType.Histogram, [.. family.ReservedNames]),
            ExportedKind.Summary => new(instrument, family.Name, PrometheusType.Summary, [.. family.ReservedNames]),
            _ => new(instrument, string.Empty, PrometheusType.Unsupported, []),
        };
    }
}
