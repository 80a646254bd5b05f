using ScalableMetrics.Instruments.ExponentialHistograms;
using ScalableMetrics.Naming;

namespace ScalableMetrics.Exporter.Prometheus.Exposition;

/// <summary>
/// Writes Prometheus' protobuf exposition (client_golang's <c>expfmt</c> with
/// <c>FmtProtoDelim</c>): a length-delimited <c>io.prometheus.client.MetricFamily</c> message per
/// family (<see cref="ProtobufFamilyWriter"/>), a series being one <c>Metric</c> message; an
/// exponential histogram as a native histogram (<see cref="NativeHistogramEncoder"/>), the only
/// format in which Prometheus takes one, with the instrument's classic buckets, if it has classic
/// boundaries, in the same message (<see cref="ClassicBuckets"/>). A counter's, summary's or
/// histogram's known start is its message's <c>created_timestamp</c>, never a <c>_created</c>
/// series; nothing at the end.
/// </summary>
internal sealed class ProtobufWriter : ExpositionWriter
{
    private readonly ProtobufFamilyWriter _family = new();
    private readonly ClassicBuckets _classic = new();

    /// <inheritdoc/>
    public override PrometheusExpositionFormat Format => PrometheusExpositionFormat.Protobuf;

    /// <summary>Also drops the family begun, if any, and starts the next scrape of the labels kept per series (a scrape starting over).</summary>
    public override void Clear()
    {
        base.Clear();
        _family.Restart();
    }

    /// <summary>Ends the family before, and begins this one's message: name, help and type.</summary>
    /// <inheritdoc/>
    public override void WriteHeader(string family, ExportedKind kind, string? help, string? unit = null)
    {
        _family.End(Output);
        _family.Begin(family, kind, help);
    }

    /// <inheritdoc/>
    public override void WriteSample(string name, string suffix, LabelBlock labels, string? extraLabelName, double extraLabelValue, long value, Exemplar? exemplar = null) =>
        WriteValue(name, suffix, labels, extraLabelName, value, exemplar);

    /// <inheritdoc/>
    public override void WriteSample(string name, string suffix, LabelBlock labels, string? extraLabelName, double extraLabelValue, double value, Exemplar? exemplar = null) =>
        WriteValue(name, suffix, labels, extraLabelName, value, exemplar);

    /// <summary>A counter series' start as its <c>Counter</c> message's <c>created_timestamp</c>: the
    /// counter's value comes just before it (<see cref="ExpositionWriter.WriteCounterSeries"/>); nothing for another kind, or where the start is not known.</summary>
    /// <inheritdoc/>
    public override void WriteCreated(string family, ExportedKind kind, LabelBlock labels, DateTimeOffset? created)
    {
        if (kind == ExportedKind.Counter && created is { } start)
        {
            _family.AddCreated(start);
        }
    }

    /// <summary>A native histogram; where the instrument has classic boundaries, their buckets too,
    /// in the same message, as client_golang writes a histogram of both kinds: Prometheus 2 stores
    /// the native one; Prometheus 3 the native one, and the classic one too with
    /// <c>always_scrape_classic_histograms</c>. Without classic boundaries, the native buckets only,
    /// as client_golang writes a native-only histogram: the exponential buckets written as
    /// <c>le</c> buckets (what the text formats write) would only repeat them.</summary>
    /// <remarks>A scale below <see cref="NativeHistogramEncoder.MinSchema"/> (another library's: OpenTelemetry's
    /// exponential histograms go down to -11) has no native histogram schema, and a bucket cannot be
    /// split exactly to reach one: such a series is written as the text formats write it, its
    /// exponential buckets as exact <c>le</c> buckets of a classic histogram (<see cref="ClassicBuckets"/>).</remarks>
    /// <inheritdoc/>
    public override void WriteExponentialHistogram(string name, LabelBlock labels, ExponentialHistogramPoint point, DateTimeOffset? created = null)
    {
        if (point.Scale < NativeHistogramEncoder.MinSchema)
        {
            ClassicBuckets buckets = _classic.Of(point);
            _family.AddHistogram(labels, buckets.Boundaries, buckets.CumulativeCounts, buckets.Count, point.Sum, exemplars: null, created);
            return;
        }

        _family.AddNativeHistogram(labels, point, point.ClassicBoundaries.Count > 0 ? _classic.Of(point) : null, created);
    }

    /// <summary>A <c>Summary</c> message.</summary>
    /// <inheritdoc/>
    public override void WriteSummary(string name, LabelBlock labels, long count, double sum, DateTimeOffset? created = null)
    {
        _family.AddSummary(labels, count, sum, created);
    }

    /// <summary>A <c>Histogram</c> message of a bucket per finite boundary.</summary>
    /// <inheritdoc/>
    protected override void WriteCumulativeHistogram(string name, LabelBlock labels, IReadOnlyList<double> boundaries, IReadOnlyList<long> cumulativeCounts, long count, double sum, DateTimeOffset? created, IReadOnlyList<Exemplar?>? exemplars)
    {
        _family.AddHistogram(labels, boundaries, cumulativeCounts, count, sum, exemplars, created);
    }

    /// <summary>Writes the family in progress: its message's length comes before it, so it is kept until the next header or the end.</summary>
    protected override void EndFamily() => _family.End(Output);

    private void WriteValue(string name, string suffix, LabelBlock labels, string? extraLabelName, double value, Exemplar? exemplar)
    {
        if (suffix.Length != 0 || extraLabelName is not null)
        {
            throw new InvalidOperationException($"The protobuf exposition writes a histogram's or summary's series whole, not its sample {name}{suffix}.");
        }

        _family.AddValue(labels, value, exemplar);
    }
}
