using System.Diagnostics;
using ScalableMetrics.Instruments;

namespace ScalableMetrics.Naming;

/// <summary>
/// The exported identity of an instrument (or of another meter's metric): its Prometheus family
/// (name, kind, unit), the sample names the exposition writes for it, and every name it
/// reserves, which no other instrument of the registry may export or be published under.
/// </summary>
/// <remarks>
/// <para>A <see cref="PartitionedCounter"/> <c>x</c> of unit <c>u</c> is a counter family
/// <c>B</c> = sanitized <c>x</c> + the unit's suffix, less a trailing <c>_total</c>; its sample is
/// <c>B_total</c> (and <c>B_created</c> in OpenMetrics). It reserves <c>B</c>, <c>B_total</c>,
/// <c>B_created</c>.</para>
/// <para>An <see cref="OperationData"/> <c>x</c> is a summary family <c>S</c> = sanitized <c>x</c>
/// + <c>_seconds</c> (unless it ends so already); its samples are <c>S_sum</c> and <c>S_count</c>
/// (and <c>S_created</c>). It reserves those, <c>S</c>, and the names its two published
/// instruments (<see cref="PublishedInstrument"/>) export under through any Prometheus exporter:
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
/// <c>S</c> likewise, and reserves the same published names as without.</para>
/// <para>Immutable and thread-safe.</para>
/// </remarks>
internal sealed class ExportedFamily
{
    // The variants of In(withSuffixes, scheme), made on first ask: [withSuffixes ? 0 : 1, scheme].
    // A race makes equal variants, and either is kept.
    private readonly ExportedFamily?[] _variants;
    private readonly string? _rawUnit;

    private ExportedFamily(string name, ExportedKind kind, string unit, string[] sampleNames, string[] reservedNames, string[] instrumentNames, string? rawUnit = null, bool isVariant = false)
    {
        Name = name;
        Kind = kind;
        Unit = unit;
        SampleNames = sampleNames;
        ReservedNames = reservedNames;
        InstrumentNames = instrumentNames;
        _rawUnit = rawUnit;
        _variants = isVariant ? [] : new ExportedFamily?[2 * VariantSchemes];
    }

    private const int VariantSchemes = 4;

    /// <summary>The family name: what OpenMetrics' <c># TYPE</c> and <c># HELP</c> name (<c>B</c>, a counter's without <c>_total</c>).</summary>
    public string Name { get; }

    /// <summary>The family's kind.</summary>
    public ExportedKind Kind { get; }

    /// <summary>The unit as the name's suffix spells it (<c>seconds</c>, <c>bytes</c>), or empty: OpenMetrics' <c># UNIT</c>.</summary>
    public string Unit { get; }

    /// <summary>
    /// The family name in the text format 0.0.4 and protobuf: a counter's is its sample name
    /// <c>B_total</c>, as client_golang and OpenTelemetry's exporter name it; any other family's is <see cref="Name"/>.
    /// </summary>
    public string TextName => Kind == ExportedKind.Counter ? SampleNames[0] : Name;

    /// <summary>The sample names the text format 0.0.4 writes, in order: <c>B_total</c> for a counter; <c>B</c> for a gauge; <c>B_bucket</c>, <c>B_sum</c>, <c>B_count</c> for a histogram; <c>S_sum</c>, <c>S_count</c> for a summary.</summary>
    public IReadOnlyList<string> SampleNames { get; }

    /// <summary>The family's <c>_created</c> sample name (OpenMetrics).</summary>
    public string CreatedName => Name + "_created";

    /// <summary>Every name the instrument takes: its family, samples, <c>_created</c> and, for an operation, those its published instruments export under.</summary>
    public IReadOnlyList<string> ReservedNames { get; }

    /// <summary>The instrument names it takes, compared case-insensitively as OpenTelemetry
    /// identifies instruments: its own and, for an operation, its published count's (<see cref="PublishedInstrument"/>).</summary>
    public IReadOnlyList<string> InstrumentNames { get; }

    /// <summary>The family of an instrument or metric named <paramref name="instrumentName"/>, of <paramref name="unit"/>, exported as <paramref name="kind"/>.</summary>
    public static ExportedFamily Of(string instrumentName, string? unit, ExportedKind kind)
    {
        string name = ExportedNames.MetricName(instrumentName, unit, kind);
        return Build(name, kind, ExportedNames.UnitSuffix(unit), [instrumentName], unit, isVariant: false);
    }

    /// <summary>
    /// The family as a scrape writes it under a translation and the escaping it negotiated: this
    /// family itself (the default translation's names, legacy-valid) for <see cref="EscapingScheme.Underscores"/>;
    /// for any other scheme, the family of OpenTelemetry's names (<see cref="ExportedNames.Utf8MetricName"/>,
    /// with or without suffixes), escaped as the scheme escapes a metric family (<see cref="NameEscaping.Escape"/>:
    /// the counter's sample name and any other family's name, as prometheus/common's
    /// <c>EscapeMetricFamily</c> does, the sample suffixes appended after).
    /// </summary>
    /// <param name="withSuffixes">Whether the UTF-8 names carry the unit and type suffixes (<c>NoUTF8EscapingWithSuffixes</c>) or not (<c>NoTranslation</c>).</param>
    /// <param name="scheme">The escaping the scrape applies.</param>
    /// <remarks>A family's variants carry its kind and unit suffix, and only their own names: neither the
    /// published instruments' names of an operation (which another exporter writes, legacy-named) nor variants of their own.</remarks>
    public ExportedFamily In(bool withSuffixes, EscapingScheme scheme)
    {
        if (scheme == EscapingScheme.Underscores || _variants.Length == 0)
        {
            return this;
        }

        int index = ((withSuffixes ? 0 : 1) * VariantSchemes) + (int)scheme;
        return _variants[index] ??= Variant(withSuffixes, scheme);
    }

    private ExportedFamily Variant(bool withSuffixes, EscapingScheme scheme)
    {
        string utf8 = ExportedNames.Utf8MetricName(InstrumentNames[0], _rawUnit, Kind, withSuffixes);
        string name = NameEscaping.Escape(utf8, scheme);
        return Build(name, Kind, Unit, [InstrumentNames[0]], _rawUnit, isVariant: true);
    }

    // The family of metric name `name` (a counter's sample name, _total ended): its family name,
    // sample names and reserved names.
    private static ExportedFamily Build(string name, ExportedKind kind, string unitSuffix, string[] instrumentNames, string? rawUnit, bool isVariant)
    {
        switch (kind)
        {
            case ExportedKind.Counter:
                string total = name;
                name = total.Length > "_total".Length && total.EndsWith("_total", StringComparison.Ordinal) ? total[..^"_total".Length] : total;
                return new(name, kind, unitSuffix, [total], Distinct(name, total, name + "_created"), instrumentNames, rawUnit, isVariant);
            case ExportedKind.Histogram:
            case ExportedKind.Summary:
                string[] sampleNames = kind == ExportedKind.Histogram ? [name + "_bucket", name + "_sum", name + "_count"] : [name + "_sum", name + "_count"];
                return new(name, kind, unitSuffix, sampleNames, Distinct([name, .. sampleNames, name + "_created"]), instrumentNames, rawUnit, isVariant);
            default:
                return new(name, kind, unitSuffix, [name], [name], instrumentNames, rawUnit, isVariant);
        }
    }

    /// <summary>The family of a counter named <paramref name="instrumentName"/> with <paramref name="unit"/>.</summary>
    public static ExportedFamily ForCounter(string instrumentName, string? unit) => Of(instrumentName, unit, ExportedKind.Counter);

    /// <summary>The family of an operation named <paramref name="instrumentName"/> without bucket boundaries: a summary.</summary>
    public static ExportedFamily ForOperation(string instrumentName) => ForOperation(instrumentName, withBuckets: false);

    /// <summary>The family of an operation named <paramref name="instrumentName"/>: a histogram <paramref name="withBuckets"/>, a summary without.</summary>
    public static ExportedFamily ForOperation(string instrumentName, bool withBuckets)
    {
        ExportedFamily family = Of(instrumentName, OperationData.ElapsedUnit, withBuckets ? ExportedKind.Histogram : ExportedKind.Summary);
        PublishedInstrument[] published = [PublishedInstrument.OperationElapsed(instrumentName), PublishedInstrument.OperationCount(instrumentName)];
        return new(
            family.Name,
            family.Kind,
            family.Unit,
            [.. family.SampleNames],
            Distinct([.. family.ReservedNames, .. published.SelectMany(static p => p.ExportedNames)]),
            Distinct([instrumentName, .. published.Select(static p => p.Name)]),
            OperationData.ElapsedUnit);
    }

    /// <summary>The family of an up-down counter (or a gauge) named <paramref name="instrumentName"/> with <paramref name="unit"/>: a gauge.</summary>
    public static ExportedFamily ForGauge(string instrumentName, string? unit) => Of(instrumentName, unit, ExportedKind.Gauge);

    /// <summary>The family of a histogram named <paramref name="instrumentName"/> with <paramref name="unit"/>.</summary>
    public static ExportedFamily ForHistogram(string instrumentName, string? unit) => Of(instrumentName, unit, ExportedKind.Histogram);

    /// <summary>The family of <paramref name="instrument"/>.</summary>
    public static ExportedFamily For(Instrument instrument)
    {
        var families = new FamilyOfKind();
        instrument.Accept(families);
        Debug.Assert(families.Family is not null, "every kind's method names a family");
        return families.Family;
    }

    private static string[] Distinct(params string[] names) => [.. names.Distinct(StringComparer.Ordinal)];

    // The family of each kind of instrument, the one place a kind's exported type is chosen.
    private sealed class FamilyOfKind : IInstrumentSink
    {
        public ExportedFamily? Family { get; private set; }

        public void Counter(PartitionedCounter counter) => Family = ForCounter(counter.Name, counter.Unit);

        public void DoubleCounter(PartitionedDoubleCounter counter) => Family = ForCounter(counter.Name, counter.Unit);

        public void ObservableCounter(ObservableCounter counter) => Family = ForCounter(counter.Name, counter.Unit);

        public void UpDownCounter(PartitionedUpDownCounter counter) => Family = ForGauge(counter.Name, counter.Unit);

        public void DoubleUpDownCounter(PartitionedDoubleUpDownCounter counter) => Family = ForGauge(counter.Name, counter.Unit);

        public void ObservableUpDownCounter(ObservableUpDownCounter counter) => Family = ForGauge(counter.Name, counter.Unit);

        public void Gauge(Gauge gauge) => Family = ForGauge(gauge.Name, gauge.Unit);

        public void DoubleGauge(DoubleGauge gauge) => Family = ForGauge(gauge.Name, gauge.Unit);

        public void ObservableGauge(ObservableGauge gauge) => Family = ForGauge(gauge.Name, gauge.Unit);

        public void Histogram(PartitionedHistogram histogram) => Family = ForHistogram(histogram.Name, histogram.Unit);

        public void ExponentialHistogram(PartitionedExponentialHistogram histogram) => Family = ForHistogram(histogram.Name, histogram.Unit);

        public void Operation(OperationData operation) => Family = ForOperation(operation.Name, operation.Boundaries is not null);
    }
}
