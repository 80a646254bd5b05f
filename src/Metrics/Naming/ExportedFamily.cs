namespace ScalableMetrics.Naming;

/// <summary>
/// The exported identity of an instrument: its Prometheus family (name and type), the sample
/// names the exposition writes for it, and every name it reserves, which no other instrument of
/// the registry may export under.
/// </summary>
/// <remarks>
/// <para>A <see cref="PartitionedCounter"/> <c>x</c> of unit <c>u</c> is a counter family
/// <c>B</c> = sanitized <c>x</c> + the unit's suffix, less a trailing <c>_total</c>; its sample is
/// <c>B_total</c> (and <c>B_created</c> in OpenMetrics). It reserves <c>B</c>, <c>B_total</c>,
/// <c>B_created</c>.</para>
/// <para>An <see cref="OperationData"/> <c>x</c> is a summary family <c>S</c> = sanitized <c>x</c>
/// + <c>_seconds</c> (unless it ends so already); its samples are <c>S_sum</c> and <c>S_count</c>
/// (and <c>S_created</c>). It reserves those, <c>S</c>, and the names its two OpenTelemetry
/// instruments on the <c>MeterBridge</c> export under through any Prometheus exporter:
/// <c>S_total</c> (<c>x</c>, unit <c>s</c>) and <c>C</c>, <c>C_total</c> with <c>C</c> = sanitized
/// <c>x.count</c>.</para>
/// <para>An up-down counter <c>x</c> of unit <c>u</c> (and a gauge) is a gauge family <c>B</c> =
/// sanitized <c>x</c> + the unit's suffix (+ <c>_ratio</c> for unit <c>1</c>); its one sample is
/// <c>B</c>, and it reserves only <c>B</c>. A double counter is a counter family as a
/// <see cref="PartitionedCounter"/> is.</para>
/// <para>A <see cref="PartitionedHistogram"/> <c>x</c> of unit <c>u</c> is a histogram family
/// <c>B</c> = sanitized <c>x</c> + the unit's suffix; its samples are <c>B_bucket</c> (one per
/// bucket, <c>le</c> labelled), <c>B_sum</c> and <c>B_count</c>, and it reserves those, <c>B</c> and
/// <c>B_created</c>. An <see cref="OperationData"/> with bucket boundaries is a histogram family
/// <c>S</c> likewise, and reserves the same OpenTelemetry names as without.</para>
/// <para>Immutable and thread-safe.</para>
/// </remarks>
internal sealed class ExportedFamily
{
    private ExportedFamily(string name, ExportedKind kind, string[] sampleNames, string[] reservedNames)
    {
        Name = name;
        Kind = kind;
        SampleNames = sampleNames;
        ReservedNames = reservedNames;
    }

    /// <summary>The family name: what <c># TYPE</c> and <c># HELP</c> name.</summary>
    public string Name { get; }

    /// <summary>The family's Prometheus type.</summary>
    public ExportedKind Kind { get; }

    /// <summary>The sample names the text format 0.0.4 writes, in order: <c>B_total</c> for a counter; <c>B</c> for a gauge; <c>B_bucket</c>, <c>B_sum</c>, <c>B_count</c> for a histogram; <c>S_sum</c>, <c>S_count</c> for a summary.</summary>
    public IReadOnlyList<string> SampleNames { get; }

    /// <summary>The family's <c>_created</c> sample name (OpenMetrics).</summary>
    public string CreatedName => Name + "_created";

    /// <summary>Every name the instrument takes: its family, samples, <c>_created</c> and, for an operation, its OpenTelemetry names.</summary>
    public IReadOnlyList<string> ReservedNames { get; }

    /// <summary>The family of a counter named <paramref name="instrumentName"/> with <paramref name="unit"/>.</summary>
    public static ExportedFamily ForCounter(string instrumentName, string? unit)
    {
        string total = ExportedNames.MetricName(instrumentName, unit, ExportedKind.Counter);
        string name = total.Length > "_total".Length && total.EndsWith("_total", StringComparison.Ordinal) ? total[..^"_total".Length] : total;
        return new ExportedFamily(name, ExportedKind.Counter, [total], Distinct(name, total, name + "_created"));
    }

    /// <summary>The family of an operation named <paramref name="instrumentName"/> without bucket boundaries: a summary.</summary>
    public static ExportedFamily ForOperation(string instrumentName) => ForOperation(instrumentName, withBuckets: false);

    /// <summary>The family of an operation named <paramref name="instrumentName"/>: a histogram <paramref name="withBuckets"/>, a summary without.</summary>
    public static ExportedFamily ForOperation(string instrumentName, bool withBuckets)
    {
        ExportedKind kind = withBuckets ? ExportedKind.Histogram : ExportedKind.Summary;
        string name = ExportedNames.MetricName(instrumentName, OperationData.ElapsedUnit, kind);
        string sum = name + "_sum";
        string count = name + "_count";
        string bridgeCount = ExportedNames.SanitizeMetricName(instrumentName + OperationData.CountNameSuffix);
        string[] sampleNames = withBuckets ? [name + "_bucket", sum, count] : [sum, count];
        return new ExportedFamily(
            name,
            kind,
            sampleNames,
            Distinct([name, .. sampleNames, name + "_created", name + "_total", bridgeCount, ExportedNames.AppendSuffix(bridgeCount, "total")]));
    }

    /// <summary>The family of an up-down counter (or a gauge) named <paramref name="instrumentName"/> with <paramref name="unit"/>: a gauge.</summary>
    public static ExportedFamily ForGauge(string instrumentName, string? unit)
    {
        string name = ExportedNames.MetricName(instrumentName, unit, ExportedKind.Gauge);
        return new ExportedFamily(name, ExportedKind.Gauge, [name], [name]);
    }

    /// <summary>The family of a histogram named <paramref name="instrumentName"/> with <paramref name="unit"/>.</summary>
    public static ExportedFamily ForHistogram(string instrumentName, string? unit)
    {
        string name = ExportedNames.MetricName(instrumentName, unit, ExportedKind.Histogram);
        string[] sampleNames = [name + "_bucket", name + "_sum", name + "_count"];
        return new ExportedFamily(name, ExportedKind.Histogram, sampleNames, Distinct([name, .. sampleNames, name + "_created"]));
    }

    /// <summary>The family of <paramref name="instrument"/>.</summary>
    /// <exception cref="ArgumentException">The instrument is of a kind without an exported family.</exception>
    public static ExportedFamily For(Instrument instrument) => instrument switch
    {
        PartitionedCounter => ForCounter(instrument.Name, instrument.Unit),
        PartitionedDoubleCounter => ForCounter(instrument.Name, instrument.Unit),
        PartitionedUpDownCounter => ForGauge(instrument.Name, instrument.Unit),
        PartitionedDoubleUpDownCounter => ForGauge(instrument.Name, instrument.Unit),
        PartitionedHistogram or PartitionedExponentialHistogram => ForHistogram(instrument.Name, instrument.Unit),
        OperationData operation => ForOperation(instrument.Name, operation.Boundaries is not null),
        Gauge or DoubleGauge or ObservableGauge or ObservableUpDownCounter => ForGauge(instrument.Name, instrument.Unit),
        ObservableCounter => ForCounter(instrument.Name, instrument.Unit),
        _ => throw new ArgumentException($"No exported family is defined for {instrument.GetType().Name}.", nameof(instrument)),
    };

    /// <summary>A name of <see cref="ReservedNames"/> that <paramref name="other"/> reserves too, or null.</summary>
    public string? FirstSharedName(ExportedFamily other)
    {
        foreach (string name in ReservedNames)
        {
            if (other.ReservedNames.Contains(name))
            {
                return name;
            }
        }

        return null;
    }

    private static string[] Distinct(params string[] names) => [.. names.Distinct(StringComparer.Ordinal)];
}
