using ScalableMetrics.Naming;

namespace ScalableMetrics.Exporter.Prometheus.Exposition;

/// <summary>
/// Writes OpenMetrics 1.0 text (prometheus/common's <c>expfmt/openmetrics_create.go</c>): per
/// family <c># TYPE</c>, <c># UNIT</c> and <c># HELP</c> lines, a counter family named without
/// <c>_total</c> and help escaped as a label value; numbers with a point or an exponent
/// (<c>1.0</c>, not <c>1</c>); a histogram's <c>_count</c> before its <c>_sum</c>, as in the
/// specification's examples; exemplars; <c>_created</c> samples where asked for
/// (<see cref="CreatedSamples"/>); and <c># EOF</c> at the end.
/// </summary>
internal sealed class OpenMetricsWriter : LineFormatWriter
{
    private readonly PrometheusTextWriter _createdScratch = new();
    private DateTimeOffset? _createdFormattedFor;

    /// <summary>A writer that writes <c>_created</c> samples only if <paramref name="createdSamples"/> says so.</summary>
    /// <param name="createdSamples">See <see cref="CreatedSamples"/>.</param>
    public OpenMetricsWriter(bool createdSamples = false)
    {
        CreatedSamples = createdSamples;
    }

    /// <summary>
    /// Whether a counter's, histogram's or summary's series gets its <c>_created</c> sample. Off
    /// unless asked for, as client_golang's <c>EnableOpenMetricsTextCreatedSamples</c> (#1408) and
    /// OpenTelemetry's exporter (#7754) have it: Prometheus stores each <c>_created</c> line as a
    /// series of its own unless its <c>created-timestamp-zero-ingestion</c> feature is on
    /// (prometheus/prometheus#6541).
    /// </summary>
    public bool CreatedSamples { get; }

    /// <inheritdoc/>
    public override PrometheusExpositionFormat Format => PrometheusExpositionFormat.OpenMetrics;

    /// <summary>Its <c># TYPE</c>, <c># UNIT</c> (when <paramref name="unit"/> is given and the
    /// family name ends with <c>_</c> and it, as the specification requires) and <c># HELP</c> lines,
    /// under the OpenMetrics family name (<see cref="OpenMetricsFamilyName"/>).</summary>
    /// <inheritdoc/>
    public override void WriteHeader(string family, ExportedKind kind, string? help, string? unit = null)
    {
        ReadOnlySpan<char> name = OpenMetricsFamilyName(family, kind);
        StartMetadataLine("# TYPE ", name);
        Output.Write(kind switch
        {
            ExportedKind.Counter => "counter\n",
            ExportedKind.Gauge => "gauge\n",
            ExportedKind.Summary => "summary\n",
            ExportedKind.Histogram => "histogram\n",
            ExportedKind.Info => "info\n",
            _ => throw new ArgumentOutOfRangeException(nameof(kind), kind, "Not a kind OpenMetrics carries here."),
        });

        // The specification: "the MetricFamily name MUST be suffixed by an underscore followed by the unit".
        if (!string.IsNullOrEmpty(unit) && name.Length > unit.Length && name.EndsWith(unit, StringComparison.Ordinal) && name[name.Length - unit.Length - 1] == '_')
        {
            StartMetadataLine("# UNIT ", name);
            Output.Write(unit);
            Output.Write((byte)'\n');
        }

        if (!string.IsNullOrEmpty(help))
        {
            StartMetadataLine("# HELP ", name);
            Output.WriteOpenMetricsHelp(help);
            Output.Write((byte)'\n');
        }
    }

    /// <summary>
    /// The <c>_created</c> sample of one series of a counter, histogram or summary: when the series
    /// started counting, in seconds since the Unix epoch. Nothing for another kind (a gauge has no
    /// start), when <paramref name="created"/> is null (not known), or unless <see cref="CreatedSamples"/>.
    /// </summary>
    /// <inheritdoc/>
    public override void WriteCreated(string family, ExportedKind kind, LabelBlock labels, DateTimeOffset? created)
    {
        if (!CreatedSamples || created is not { } time || kind is not (ExportedKind.Counter or ExportedKind.Histogram or ExportedKind.Summary))
        {
            return;
        }

        WriteNameAndLabels(family, OpenMetricsFamilyName(family, kind).Length, "_created", labels, null, 0);

        // Every series of a registry instrument has its instrument's time: formatted once, not per series.
        if (time != _createdFormattedFor)
        {
            _createdScratch.Clear();
            _createdScratch.WriteUnixSeconds(time);
            _createdFormattedFor = time;
        }

        Output.Write(_createdScratch.WrittenSpan);
        Output.Write((byte)'\n');
    }

    /// <summary>Ends the exposition with <c># EOF</c>.</summary>
    public override void WriteEnd()
    {
        base.WriteEnd();
        Output.Write("# EOF\n");
    }

    /// <summary><c>_count</c> first, as the specification's histogram examples write it; neither
    /// where OpenMetrics 1.0 forbids the sum.</summary>
    /// <remarks>OpenMetrics 1.0: a histogram's or summary's <c>_sum</c> is counter-like, so not NaN
    /// and not negative (nor, here, infinite: a sum that stays infinite for good reads as no rate),
    /// and a histogram with negative buckets "MUST NOT contain a sum value as it would no longer be
    /// a counter semantically"; <c>_count</c> is present "if and only if" the sum is. The series'
    /// count is then its <c>le="+Inf"</c> bucket. Text 0.0.4 and protobuf keep both, as Prometheus
    /// accepts them.</remarks>
    /// <inheritdoc/>
    protected override void WriteCountAndSum(string name, LabelBlock labels, long count, double sum, bool negativeBuckets)
    {
        if (negativeBuckets || !(sum >= 0 && sum < double.PositiveInfinity))
        {
            return;
        }

        WriteSample(name, "_count", labels, null, 0, count);
        WriteSample(name, "_sum", labels, null, 0, sum);
    }

    /// <inheritdoc/>
    protected override void WriteCountAndSum(HistogramLineTemplate lines, long count, double sum, bool negativeBuckets)
    {
        if (negativeBuckets || !(sum >= 0 && sum < double.PositiveInfinity))
        {
            return;
        }

        Output.WriteLine(lines.Count, count);
        WriteLine(lines.Sum, sum);
    }

    /// <inheritdoc/>
    protected override void WriteFloat(double value) => Output.WriteOpenMetrics(value);

    /// <summary><c> # {trace_id="…",span_id="…"} value timestamp</c> after a counter's or bucket's value.</summary>
    /// <inheritdoc/>
    protected override void WriteExemplar(Exemplar? exemplar)
    {
        if (exemplar is not { } e)
        {
            return;
        }

        if (e.TraceId == default)
        {
            // Kept outside a trace (ExemplarFilter.AlwaysOn): an exemplar of no labels.
            Output.Write(" # {} ");
        }
        else
        {
            Output.Write(" # {" + ExportedNames.ExemplarTraceIdLabel + "=\"");
            Output.Write(e.TraceId.ToHexString());
            Output.Write("\"," + ExportedNames.ExemplarSpanIdLabel + "=\"");
            Output.Write(e.SpanId.ToHexString());
            Output.Write("\"} ");
        }

        Output.WriteOpenMetrics(e.Value);
        Output.Write((byte)' ');
        Output.WriteUnixSeconds(e.Timestamp);
    }

    /// <summary>A counter family's OpenMetrics name: its sample name less <c>_total</c>; an info
    /// family's, less <c>_info</c>; any other family's name as it is.</summary>
    /// <remarks>A span of the name, so that a scrape's <c>_created</c> samples allocate nothing.</remarks>
    private static ReadOnlySpan<char> OpenMetricsFamilyName(string family, ExportedKind kind) => kind switch
    {
        ExportedKind.Counter => WithoutSuffix(family, "_total"),
        ExportedKind.Info => WithoutSuffix(family, "_info"),
        _ => family,
    };

    private static ReadOnlySpan<char> WithoutSuffix(string name, string suffix) =>
        name.Length > suffix.Length && name.EndsWith(suffix, StringComparison.Ordinal) ? name.AsSpan(0, name.Length - suffix.Length) : name;
}
