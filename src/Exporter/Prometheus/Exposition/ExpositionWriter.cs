using System.Text;
using ScalableMetrics.Instruments.Histograms;
using ScalableMetrics.Naming;

namespace ScalableMetrics.Exporter.Prometheus.Exposition;

/// <summary>
/// Writes the text exposition format 0.0.4, OpenMetrics 1.0 text or the protobuf exposition (<see cref="Format"/>):
/// a family's header, then its series. In the text formats every sample goes through one primitive,
/// <see cref="WriteSample(string, string, LabelBlock, string?, double, long, Exemplar?)"/>, after prometheus/common's
/// <c>expfmt/text_create.go</c> (<c>writeSample(name, suffix, metric, extraLabel, value)</c>); in
/// protobuf a series is one <c>Metric</c> message (<see cref="ProtobufFamilyWriter"/>), so the sources
/// write a histogram's or summary's series through <see cref="WriteHistogram"/>,
/// <see cref="WriteExponentialHistogram"/> and <see cref="WriteSummary"/>, never sample by sample.
/// Reused from scrape to scrape; not thread-safe.
/// </summary>
/// <remarks>
/// <para>The sources write every family the same way in both formats; the few places the formats
/// differ are here: the header (OpenMetrics: <c># TYPE</c>, <c># UNIT</c>, <c># HELP</c>, a
/// counter family named without <c>_total</c>, help escaped as a label value), floating-point
/// numbers (<c>1.0</c>, not <c>1</c>), a histogram's <c>_count</c> before its <c>_sum</c> as in the
/// specification's examples, the <c>_created</c> samples (<see cref="WriteCreated"/>) and
/// <c># EOF</c> (<see cref="WriteEnd"/>), which the text format 0.0.4 has not.</para>
/// <para>With <see cref="ChecksDuplicates"/> (on in debug builds, and in the tests), the writer throws
/// when a sample repeats one already written since <see cref="Clear"/> under the same name and
/// labels: a series Prometheus would store once, keeping the first value and dropping the rest.</para>
/// </remarks>
internal sealed class ExpositionWriter
{
    private readonly PrometheusTextWriter _text = new();
    private readonly HashSet<string> _written = new(StringComparer.Ordinal);
    private readonly ProtobufFamilyWriter _protobuf = new();
    private readonly List<double> _boundaryScratch = [];
    private readonly List<long> _countScratch = [];
    private readonly PrometheusTextWriter _createdScratch = new();
    private DateTimeOffset? _createdFormattedFor;

    /// <summary>The default of <see cref="ChecksDuplicates"/>: on in debug builds; the tests turn it on for every writer.</summary>
    public static bool ChecksDuplicatesByDefault { get; set; }
#if DEBUG
        = true;
#endif

    /// <summary>Whether a repeated series throws <see cref="InvalidOperationException"/>.</summary>
    public bool ChecksDuplicates { get; init; } = ChecksDuplicatesByDefault;

    /// <summary>The format of what is written next; set it after <see cref="Clear"/>, before the first family.</summary>
    public PrometheusExpositionFormat Format { get; set; }

    /// <summary>Whether <see cref="Format"/> is OpenMetrics.</summary>
    public bool IsOpenMetrics => Format == PrometheusExpositionFormat.OpenMetrics;

    /// <summary>Whether <see cref="Format"/> is the protobuf exposition.</summary>
    public bool IsProtobuf => Format == PrometheusExpositionFormat.Protobuf;

    /// <summary>The bytes written since <see cref="Clear"/>, the family in progress ended first.</summary>
    public ReadOnlySpan<byte> WrittenSpan
    {
        get
        {
            EndProtobufFamily();
            return _text.WrittenSpan;
        }
    }

    /// <summary>How many bytes were written since <see cref="Clear"/>, the family in progress ended first.</summary>
    public int Length => WrittenSpan.Length;

    public void Clear()
    {
        _text.Clear();
        _written.Clear();
        _protobuf.Discard();
    }

    /// <summary>The header of a family: in the text format 0.0.4 its <c># HELP</c> line (when
    /// <paramref name="help"/> is not empty) and <c># TYPE</c> line; in OpenMetrics its
    /// <c># TYPE</c>, <c># UNIT</c> (when <paramref name="unit"/> is given and the family name ends
    /// with <c>_</c> and it, as the specification requires) and <c># HELP</c> lines.</summary>
    /// <param name="family">The family name of the text format 0.0.4: a counter's is its sample name <c>B_total</c>, which OpenMetrics names <c>B</c>.</param>
    /// <param name="type">The family's type.</param>
    /// <param name="help">The help text, or null or empty for none.</param>
    /// <param name="unit">The unit as the name's suffix says it (<c>seconds</c>, <c>bytes</c>), or null or empty for none.</param>
    public void WriteHeader(string family, ExportedKind type, string? help, string? unit = null)
    {
        if (IsProtobuf)
        {
            _protobuf.End(_text);
            _protobuf.Begin(family, type, help);
            return;
        }

        if (IsOpenMetrics)
        {
            WriteOpenMetricsHeader(OpenMetricsFamilyName(family, type), type, help, unit);
            return;
        }

        if (!string.IsNullOrEmpty(help))
        {
            _text.Write("# HELP ");
            _text.Write(family);
            _text.Write((byte)' ');
            _text.WriteHelp(help);
            _text.Write((byte)'\n');
        }

        _text.Write("# TYPE ");
        _text.Write(family);
        _text.Write(type switch
        {
            ExportedKind.Counter => " counter\n",
            ExportedKind.Gauge or ExportedKind.Info => " gauge\n",
            ExportedKind.Summary => " summary\n",
            ExportedKind.Histogram => " histogram\n",
            _ => throw new ArgumentOutOfRangeException(nameof(type), type, "Not a type the text format carries."),
        });
    }

    /// <summary>
    /// In OpenMetrics, the <c>_created</c> sample of one series of a counter, histogram or summary:
    /// when the series started counting, in seconds since the Unix epoch. Nothing in the text
    /// format 0.0.4 or protobuf, for another type (a gauge has no start), or when
    /// <paramref name="created"/> is null (not known).
    /// </summary>
    /// <param name="family">The family name as given to <see cref="WriteHeader"/>.</param>
    /// <param name="type">The family's type.</param>
    /// <param name="labels">The series' labels.</param>
    /// <param name="created">When the series started, or null.</param>
    public void WriteCreated(string family, ExportedKind type, LabelBlock labels, DateTimeOffset? created)
    {
        if (!IsOpenMetrics || created is not { } time || type is not (ExportedKind.Counter or ExportedKind.Histogram or ExportedKind.Summary))
        {
            return;
        }

        WriteNameAndLabels(OpenMetricsFamilyName(family, type), "_created", labels, null, 0);

        // Every series of a registry instrument has its instrument's time: formatted once, not per series.
        if (time != _createdFormattedFor)
        {
            _createdScratch.Clear();
            _createdScratch.WriteUnixSeconds(time);
            _createdFormattedFor = time;
        }

        _text.Write(_createdScratch.WrittenSpan);
        _text.Write((byte)'\n');
    }

    /// <summary>Ends the exposition: <c># EOF</c> in OpenMetrics, nothing in the text format 0.0.4; in protobuf, the last family's message.</summary>
    public void WriteEnd()
    {
        EndProtobufFamily();
        if (IsOpenMetrics)
        {
            _text.Write("# EOF\n");
        }
    }

    /// <summary>One sample of integer value: <c>name suffix{labels,extra="bound"} value</c>.</summary>
    /// <param name="name">The family name.</param>
    /// <param name="suffix">Appended to the name (<c>_sum</c>, <c>_count</c>, <c>_bucket</c>), or empty.</param>
    /// <param name="labels">The series' labels.</param>
    /// <param name="extraLabelName">A label written after the series' (<c>le</c>, <c>quantile</c>), or null for none.</param>
    /// <param name="extraLabelValue">Its value, written as a float.</param>
    /// <param name="value">The sample's value.</param>
    /// <param name="exemplar">A counter's exemplar, or null: written in OpenMetrics and protobuf, not in the text format 0.0.4, which has none.</param>
    /// <exception cref="InvalidOperationException">In protobuf, a sample with a suffix or extra label: a histogram's or summary's, which has its own method.</exception>
    public void WriteSample(string name, string suffix, LabelBlock labels, string? extraLabelName, double extraLabelValue, long value, Exemplar? exemplar = null)
    {
        if (IsProtobuf)
        {
            WriteProtobufValue(name, suffix, labels, extraLabelName, value, exemplar);
            return;
        }

        WriteNameAndLabels(name, suffix, labels, extraLabelName, extraLabelValue);
        _text.Write(value);
        WriteExemplar(exemplar);
        _text.Write((byte)'\n');
    }

    /// <summary>One sample of floating-point value; see the <see cref="long"/> overload.</summary>
    public void WriteSample(string name, string suffix, LabelBlock labels, string? extraLabelName, double extraLabelValue, double value, Exemplar? exemplar = null)
    {
        if (IsProtobuf)
        {
            WriteProtobufValue(name, suffix, labels, extraLabelName, value, exemplar);
            return;
        }

        WriteNameAndLabels(name, suffix, labels, extraLabelName, extraLabelValue);
        WriteFloat(value);
        WriteExemplar(exemplar);
        _text.Write((byte)'\n');
    }

    /// <summary>
    /// One histogram series, as prometheus/common's <c>expfmt</c> writes one: a <c>_bucket</c>
    /// sample per boundary with its <c>le</c> and the cumulative count of the values at most that
    /// boundary, the <c>le="+Inf"</c> bucket (every value), then <c>_sum</c> and <c>_count</c>.
    /// </summary>
    /// <remarks><c>_count</c> is the <c>+Inf</c> bucket's count by construction, so the two agree
    /// in every scrape. A cumulative count that would pass <see cref="long.MaxValue"/> stays there,
    /// as the series' saturating cells do.</remarks>
    /// <param name="name">The family name (<c>B</c> of <c>B_bucket</c>).</param>
    /// <param name="labels">The series' labels.</param>
    /// <param name="boundaries">The bucket boundaries, increasing.</param>
    /// <param name="bucketCounts">The count of each bucket, not cumulative: one more than <paramref name="boundaries"/>, the last (b[n-1], +∞).</param>
    /// <param name="sum">The sum of the values recorded.</param>
    /// <param name="created">When the series started (OpenMetrics' <c>_created</c>), or null.</param>
    /// <param name="exemplars">The newest exemplar of each bucket, indexed as <paramref name="bucketCounts"/>, or null for none:
    /// written on the bucket's <c>_bucket</c> sample in OpenMetrics, in its <c>Bucket</c> message in protobuf.</param>
    public void WriteHistogram(string name, LabelBlock labels, IReadOnlyList<double> boundaries, IReadOnlyList<long> bucketCounts, double sum, DateTimeOffset? created = null, IReadOnlyList<Exemplar?>? exemplars = null)
    {
        _countScratch.Clear();
        long cumulative = 0;
        for (int i = 0; i < boundaries.Count; i++)
        {
            cumulative = SaturatingCounts.Add(cumulative, bucketCounts[i]);
            _countScratch.Add(cumulative);
        }

        cumulative = SaturatingCounts.Add(cumulative, bucketCounts[boundaries.Count]);
        WriteCumulativeHistogram(name, labels, boundaries, _countScratch, cumulative, sum, created, exemplars);
    }

    /// <summary>
    /// One exponential histogram series. In protobuf, a native histogram
    /// (<see cref="NativeHistogramEncoder"/>). In the text formats, which have no native histogram,
    /// the same buckets as a classic histogram, so that no text scrape leaves the instrument out:
    /// the zero bucket as <c>le</c> = its threshold, each non-empty bucket (base^i, base^(i + 1)] as
    /// <c>le</c> = base^(i + 1), with cumulative counts, then <c>le="+Inf"</c>, <c>_sum</c> and
    /// <c>_count</c>. Its <c>le</c> values follow the reading's buckets, so a bucket first filled
    /// starts a new <c>le</c> series, as a native histogram's new bucket does.
    /// </summary>
    /// <param name="name">The family name.</param>
    /// <param name="labels">The series' labels.</param>
    /// <param name="reading">The series' reading.</param>
    /// <param name="created">When the series started (OpenMetrics' <c>_created</c>), or null.</param>
    public void WriteExponentialHistogram(string name, LabelBlock labels, ExponentialHistogramReading reading, DateTimeOffset? created = null)
    {
        if (IsProtobuf)
        {
            CheckProtobufSeries(name, labels);
            _protobuf.AddNativeHistogram(labels, reading);
            return;
        }

        _boundaryScratch.Clear();
        _countScratch.Clear();
        long cumulative = reading.ZeroCount;
        if (cumulative > 0)
        {
            _boundaryScratch.Add(reading.ZeroThreshold);
            _countScratch.Add(cumulative);
        }

        for (int j = 0; j < reading.PositiveBucketCounts.Count; j++)
        {
            long count = reading.PositiveBucketCounts[j];
            if (count == 0)
            {
                continue;
            }

            cumulative = SaturatingCounts.Add(cumulative, count);
            _boundaryScratch.Add(reading.PositiveBucketUpperBoundary(j));
            _countScratch.Add(cumulative);
        }

        WriteCumulativeHistogram(name, labels, _boundaryScratch, _countScratch, reading.Count, reading.Sum, created, exemplars: null);
    }

    /// <summary>
    /// One summary series without quantiles: <c>_sum</c> and <c>_count</c> samples in the text
    /// formats (in the format's order, see <see cref="WriteCountAndSum"/>), then OpenMetrics'
    /// <c>_created</c>; a <c>Summary</c> message in protobuf.
    /// </summary>
    public void WriteSummary(string name, LabelBlock labels, long count, double sum, DateTimeOffset? created = null)
    {
        if (IsProtobuf)
        {
            CheckProtobufSeries(name, labels);
            _protobuf.AddSummary(labels, count, sum);
            return;
        }

        WriteCountAndSum(name, labels, count, sum);
        WriteCreated(name, ExportedKind.Summary, labels, created);
    }

    /// <summary>The <c>_sum</c> and <c>_count</c> samples of a histogram series, in the format's
    /// order: <c>_sum</c> first in the text format 0.0.4 (prometheus/common's <c>expfmt</c>),
    /// <c>_count</c> first in OpenMetrics (the specification's histogram examples).</summary>
    public void WriteCountAndSum(string name, LabelBlock labels, long count, double sum)
    {
        if (IsOpenMetrics)
        {
            WriteSample(name, "_count", labels, null, 0, count);
            WriteSample(name, "_sum", labels, null, 0, sum);
        }
        else
        {
            WriteSample(name, "_sum", labels, null, 0, sum);
            WriteSample(name, "_count", labels, null, 0, count);
        }
    }

    /// <summary>Copies families already in the format (a family another writer wrote): text lines, or delimited protobuf messages.</summary>
    public void WriteRaw(ReadOnlySpan<byte> families)
    {
        EndProtobufFamily();
        _text.Write(families);
    }

    public byte[] ToArray() => WrittenSpan.ToArray();

    public override string ToString() => _text.ToString();

    /// <summary>A counter family's OpenMetrics name: its sample name less <c>_total</c>; an info
    /// family's, less <c>_info</c>; any other family's name as it is.</summary>
    /// <remarks>A span of the name, so that a scrape's <c>_created</c> samples allocate nothing.</remarks>
    private static ReadOnlySpan<char> OpenMetricsFamilyName(string family, ExportedKind type) => type switch
    {
        ExportedKind.Counter => WithoutSuffix(family, "_total"),
        ExportedKind.Info => WithoutSuffix(family, "_info"),
        _ => family,
    };

    private static ReadOnlySpan<char> WithoutSuffix(string name, string suffix) =>
        name.Length > suffix.Length && name.EndsWith(suffix, StringComparison.Ordinal) ? name.AsSpan(0, name.Length - suffix.Length) : name;

    private void WriteOpenMetricsHeader(ReadOnlySpan<char> family, ExportedKind type, string? help, string? unit)
    {
        _text.Write("# TYPE ");
        _text.Write(family);
        _text.Write(type switch
        {
            ExportedKind.Counter => " counter\n",
            ExportedKind.Gauge => " gauge\n",
            ExportedKind.Summary => " summary\n",
            ExportedKind.Histogram => " histogram\n",
            ExportedKind.Info => " info\n",
            _ => throw new ArgumentOutOfRangeException(nameof(type), type, "Not a type OpenMetrics carries here."),
        });

        // The specification: "the MetricFamily name MUST be suffixed by an underscore followed by the unit".
        if (!string.IsNullOrEmpty(unit) && family.Length > unit.Length && family.EndsWith(unit, StringComparison.Ordinal) && family[family.Length - unit.Length - 1] == '_')
        {
            _text.Write("# UNIT ");
            _text.Write(family);
            _text.Write((byte)' ');
            _text.Write(unit);
            _text.Write((byte)'\n');
        }

        if (!string.IsNullOrEmpty(help))
        {
            _text.Write("# HELP ");
            _text.Write(family);
            _text.Write((byte)' ');
            _text.WriteOpenMetricsHelp(help);
            _text.Write((byte)'\n');
        }
    }

    private void WriteFloat(double value)
    {
        if (IsOpenMetrics)
        {
            _text.WriteOpenMetrics(value);
        }
        else
        {
            _text.Write(value);
        }
    }

    // Cumulative counts, one per boundary; the last count (+Inf) is the series' count.
    // Exemplars, where given, one per bucket: boundaries.Count + 1, the last the +Inf bucket's.
    private void WriteCumulativeHistogram(string name, LabelBlock labels, IReadOnlyList<double> boundaries, IReadOnlyList<long> cumulativeCounts, long count, double sum, DateTimeOffset? created, IReadOnlyList<Exemplar?>? exemplars)
    {
        if (IsProtobuf)
        {
            CheckProtobufSeries(name, labels);
            _protobuf.AddHistogram(labels, boundaries, cumulativeCounts, count, sum, exemplars);
            return;
        }

        for (int i = 0; i < boundaries.Count; i++)
        {
            WriteSample(name, "_bucket", labels, "le", boundaries[i], cumulativeCounts[i], exemplars?[i]);
        }

        WriteSample(name, "_bucket", labels, "le", double.PositiveInfinity, count, exemplars?[boundaries.Count]);
        WriteCountAndSum(name, labels, count, sum);
        WriteCreated(name, ExportedKind.Histogram, labels, created);
    }

    private void WriteProtobufValue(string name, string suffix, LabelBlock labels, string? extraLabelName, double value, Exemplar? exemplar)
    {
        if (suffix.Length != 0 || extraLabelName is not null)
        {
            throw new InvalidOperationException($"The protobuf exposition writes a histogram's or summary's series whole, not its sample {name}{suffix}.");
        }

        CheckProtobufSeries(name, labels);
        _protobuf.AddValue(labels, value, exemplar);
    }

    // OpenMetrics: " # {trace_id="…",span_id="…"} value timestamp" after a counter's or bucket's value.
    private void WriteExemplar(Exemplar? exemplar)
    {
        if (!IsOpenMetrics || exemplar is not { } e)
        {
            return;
        }

        _text.Write(" # {" + ExemplarLabels.TraceId + "=\"");
        _text.Write(e.TraceId.ToHexString());
        _text.Write("\"," + ExemplarLabels.SpanId + "=\"");
        _text.Write(e.SpanId.ToHexString());
        _text.Write("\"} ");
        _text.WriteOpenMetrics(e.Value);
        _text.Write((byte)' ');
        _text.WriteUnixSeconds(e.Timestamp);
    }

    private void CheckProtobufSeries(string name, LabelBlock labels)
    {
        if (ChecksDuplicates && !_written.Add(name + "{" + labels + "}"))
        {
            throw new InvalidOperationException($"The exposition repeats the series {name}{{{labels}}}; Prometheus would keep the first sample and drop this one.");
        }
    }

    private void EndProtobufFamily() => _protobuf.End(_text);


    private void WriteNameAndLabels(ReadOnlySpan<char> name, string suffix, LabelBlock labels, string? extraLabelName, double extraLabelValue)
    {
        int start = _text.WrittenSpan.Length;
        _text.Write(name);
        _text.Write(suffix);

        // No braces for no labels, as both specifications' examples write such a sample (foo_count 17).
        if (labels.Utf8.IsEmpty && extraLabelName is null)
        {
            FinishNameAndLabels(start);
            return;
        }

        _text.Write((byte)'{');
        _text.Write(labels.Utf8);
        if (extraLabelName is not null)
        {
            if (!labels.Utf8.IsEmpty)
            {
                _text.Write((byte)',');
            }

            _text.Write(extraLabelName);
            _text.Write("=\"");
            WriteFloat(extraLabelValue);
            _text.Write((byte)'"');
        }

        _text.Write((byte)'}');
        FinishNameAndLabels(start);
    }

    private void FinishNameAndLabels(int start)
    {
        if (ChecksDuplicates)
        {
            CheckNotWritten(start);
        }

        _text.Write((byte)' ');
    }

    private void CheckNotWritten(int start)
    {
        // The name and label text identify the series: the label block is canonical (sorted,
        // no empty value) and the extra label comes last.
        string series = Encoding.UTF8.GetString(_text.WrittenSpan[start..]);
        if (!_written.Add(series))
        {
            _text.Truncate(start);
            throw new InvalidOperationException($"The exposition repeats the series {series}; Prometheus would keep the first sample and drop this one.");
        }
    }
}
