namespace ScalableMetrics.Exporter.Prometheus.Sources;

/// <summary>
/// How one registry instrument is exposed: its family's name, type and help, and the names its
/// samples are stored under. Computed once per instrument.
/// </summary>
/// <remarks>
/// A <see cref="PartitionedCounter"/> is a counter family <c>B_total</c>, where <c>B</c> is the
/// sanitized name and the unit's suffix; an <see cref="OperationData"/> is a summary family
/// <c>S</c> (the sanitized name and <c>_seconds</c>) of samples <c>S_sum</c> (seconds) and
/// <c>S_count</c> (operations).
/// </remarks>
internal sealed class RegistryFamily
{
    private RegistryFamily(Instrument instrument, string name, PrometheusType type)
    {
        Instrument = instrument;
        Name = name;
        Type = type;
        Help = instrument.Description;
        SampleNames = PrometheusNames.SampleNames(name, type);
    }

    public Instrument Instrument { get; }

    public string Name { get; }

    public PrometheusType Type { get; }

    public string? Help { get; }

    public string[] SampleNames { get; }

    public static RegistryFamily Create(Instrument instrument) => instrument switch
    {
        // The one place the exporter derives family names from the registry's instruments.
        PartitionedCounter => new(instrument, PrometheusNames.MetricName(instrument.Name, instrument.Unit, PrometheusType.Counter), PrometheusType.Counter),
        OperationData => new(instrument, PrometheusNames.MetricName(instrument.Name, OperationData.ElapsedUnit, PrometheusType.Summary), PrometheusType.Summary),
        _ => new(instrument, string.Empty, PrometheusType.Unsupported),
    };
}
