using System.Text;

namespace ScalableMetrics.Exporter.Prometheus.Exposition;

/// <summary>
/// Writes the text exposition format 0.0.4: a family's <c># HELP</c> and <c># TYPE</c> lines,
/// then every sample through one primitive, <see cref="WriteSample(string, string, LabelBlock, string?, double, long)"/>,
/// after prometheus/common's <c>expfmt/text_create.go</c> (<c>writeSample(name, suffix, metric,
/// extraLabel, value)</c>). Reused from scrape to scrape; not thread-safe.
/// </summary>
/// <remarks>
/// With <see cref="ChecksDuplicates"/> (on in debug builds, and in the tests), the writer throws
/// when a sample repeats one already written since <see cref="Clear"/> under the same name and
/// labels: a series Prometheus would store once, keeping the first value and dropping the rest.
/// </remarks>
internal sealed class ExpositionWriter
{
    private readonly PrometheusTextWriter _text = new();
    private readonly HashSet<string> _written = new(StringComparer.Ordinal);

    /// <summary>The default of <see cref="ChecksDuplicates"/>: on in debug builds; the tests turn it on for every writer.</summary>
    public static bool ChecksDuplicatesByDefault { get; set; }
#if DEBUG
        = true;
#endif

    /// <summary>Whether a repeated series throws <see cref="InvalidOperationException"/>.</summary>
    public bool ChecksDuplicates { get; init; } = ChecksDuplicatesByDefault;

    /// <summary>The bytes written since <see cref="Clear"/>.</summary>
    public ReadOnlySpan<byte> WrittenSpan => _text.WrittenSpan;

    /// <summary>How many bytes were written since <see cref="Clear"/>.</summary>
    public int Length => _text.WrittenSpan.Length;

    public void Clear()
    {
        _text.Clear();
        _written.Clear();
    }

    /// <summary>The <c># HELP</c> line (when <paramref name="help"/> is not empty) and the <c># TYPE</c> line of a family.</summary>
    public void WriteHeader(string family, PrometheusType type, string? help)
    {
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
            PrometheusType.Counter => " counter\n",
            PrometheusType.Gauge => " gauge\n",
            PrometheusType.Summary => " summary\n",
            PrometheusType.Histogram => " histogram\n",
            _ => throw new ArgumentOutOfRangeException(nameof(type), type, "Not a type the text format carries."),
        });
    }

    /// <summary>One sample of integer value: <c>name suffix{labels,extra="bound"} value</c>.</summary>
    /// <param name="name">The family name.</param>
    /// <param name="suffix">Appended to the name (<c>_sum</c>, <c>_count</c>, <c>_bucket</c>), or empty.</param>
    /// <param name="labels">The series' labels.</param>
    /// <param name="extraLabelName">A label written after the series' (<c>le</c>, <c>quantile</c>), or null for none.</param>
    /// <param name="extraLabelValue">Its value, written as a float.</param>
    /// <param name="value">The sample's value.</param>
    public void WriteSample(string name, string suffix, LabelBlock labels, string? extraLabelName, double extraLabelValue, long value)
    {
        WriteNameAndLabels(name, suffix, labels, extraLabelName, extraLabelValue);
        _text.Write(value);
        _text.Write((byte)'\n');
    }

    /// <summary>One sample of floating-point value; see the <see cref="long"/> overload.</summary>
    public void WriteSample(string name, string suffix, LabelBlock labels, string? extraLabelName, double extraLabelValue, double value)
    {
        WriteNameAndLabels(name, suffix, labels, extraLabelName, extraLabelValue);
        _text.Write(value);
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
    public void WriteHistogram(string name, LabelBlock labels, IReadOnlyList<double> boundaries, IReadOnlyList<long> bucketCounts, double sum)
    {
        long cumulative = 0;
        for (int i = 0; i < boundaries.Count; i++)
        {
            cumulative = SaturatingAdd(cumulative, bucketCounts[i]);
            WriteSample(name, "_bucket", labels, "le", boundaries[i], cumulative);
        }

        cumulative = SaturatingAdd(cumulative, bucketCounts[boundaries.Count]);
        WriteSample(name, "_bucket", labels, "le", double.PositiveInfinity, cumulative);
        WriteSample(name, "_sum", labels, null, 0, sum);
        WriteSample(name, "_count", labels, null, 0, cumulative);
    }

    /// <summary>Copies text already in the format (a family another writer wrote).</summary>
    public void WriteRaw(ReadOnlySpan<byte> text) => _text.Write(text);

    public byte[] ToArray() => _text.WrittenSpan.ToArray();

    public override string ToString() => _text.ToString();

    private static long SaturatingAdd(long total, long count) => total > long.MaxValue - count ? long.MaxValue : total + count;

    private void WriteNameAndLabels(string name, string suffix, LabelBlock labels, string? extraLabelName, double extraLabelValue)
    {
        int start = _text.WrittenSpan.Length;
        _text.Write(name);
        _text.Write(suffix);
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
            _text.Write(extraLabelValue);
            _text.Write((byte)'"');
        }

        _text.Write((byte)'}');
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
