namespace ScalableMetrics.Exporter.Prometheus.Sources;

/// <summary>
/// How one registry instrument is exposed: its family's name, type and help, and the names its
/// samples are stored under. Computed once per instrument.
/// </summary>
/// <remarks>
/// The names come from the core's exported identity (<see cref="ExportedFamily"/>), the one place
/// that defines them and that the registry checks at creation: a <see cref="PartitionedCounter"/>
/// is a counter written as <c>B_total</c> (the text format 0.0.4 names the family after its
/// sample, as OpenTelemetry's exporter does), where <c>B</c> is the sanitized name and the unit's
/// suffix; an <see cref="OperationData"/> is a summary family <c>S</c> (the sanitized name and
/// <c>_seconds</c>) of samples <c>S_sum</c> (seconds) and <c>S_count</c> (operations).
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
    }

    public Instrument Instrument { get; }

    public string Name { get; }

    public PrometheusType Type { get; }

    public string? Help { get; }

    public string[] SampleNames { get; }

    public static RegistryFamily Create(Instrument instrument)
    {
        if (instrument is not (PartitionedCounter or OperationData))
        {
            return new(instrument, string.Empty, PrometheusType.Unsupported, []);
        }

        // Every name the instrument reserves counts as taken, so that no other meter's family
        // can be written under one of them.
        ExportedFamily family = ExportedFamily.For(instrument);
        return family.Kind == ExportedKind.Counter
            ? new(instrument, family.SampleNames[0], PrometheusType.Counter, [.. family.ReservedNames])
            : new(instrument, family.Name, PrometheusType.Summary, [.. family.ReservedNames]);
    }
}
