using System.Text;
using ScalableMetrics.Naming;

namespace ScalableMetrics.Exporter.Prometheus.Exposition;

/// <summary>
/// The labels of one series, rendered once as the UTF-8 text between the braces of its samples
/// (<c>otel_scope_name="m",code="200"</c>): scope labels first, then the series' tag labels,
/// sanitized, sorted by label name, values escaped, empty values left out.
/// </summary>
/// <remarks>
/// Two blocks are equal when their text is: because the tag labels are sorted and empty values
/// dropped, that is exactly when Prometheus would store the two series as one (prometheus/common
/// <c>model.LabelSet</c>: a label with an empty value is no label). Immutable and thread-safe.
/// </remarks>
internal sealed class LabelBlock : IEquatable<LabelBlock>
{
    /// <summary>How many families' histogram lines a label block keeps per format (<see cref="FindHistogramLines"/>).</summary>
    public const int MaxKeptHistogramLines = 8;

    private readonly byte[] _utf8;
    private readonly KeyValuePair<string, string>[] _labels;
    private readonly int _hashCode;
    private byte[]? _protobufLabels;
    private HistogramLineTemplate[] _textHistogramLines = [];
    private HistogramLineTemplate[] _openMetricsHistogramLines = [];

    private LabelBlock(byte[] utf8, KeyValuePair<string, string>[] labels)
    {
        _utf8 = utf8;
        _labels = labels;
        var hash = new HashCode();
        hash.AddBytes(utf8);
        _hashCode = hash.ToHashCode();
    }

    /// <summary>The rendered labels, without the braces; empty for a series without labels.</summary>
    public ReadOnlySpan<byte> Utf8 => _utf8;

    /// <summary>The labels as the <c>label</c> fields of the protobuf exposition's <c>Metric</c> message (<see cref="ProtobufMessages.MetricLabels"/>), encoded on the first protobuf scrape and kept.</summary>
    /// <remarks>Two scrapes never run at once; were they to, both would encode the same bytes.</remarks>
    public ReadOnlySpan<byte> ProtobufLabels => _protobufLabels ??= ProtobufMessages.MetricLabels(_labels);

    /// <summary>
    /// The histogram lines kept for this label block in a text format (<see cref="HistogramLineTemplate"/>)
    /// that fit <paramref name="name"/> and <paramref name="boundaries"/>, or null: several families
    /// may share a block (the empty tag set is one object for every instrument of a meter), so
    /// each keeps its own, up to <see cref="MaxKeptHistogramLines"/>.
    /// </summary>
    /// <param name="openMetrics">Whether OpenMetrics' lines, else text 0.0.4's (their boundaries are spelled differently).</param>
    /// <param name="name">The family name.</param>
    /// <param name="boundaries">The family's boundaries.</param>
    public HistogramLineTemplate? FindHistogramLines(bool openMetrics, string name, IReadOnlyList<double> boundaries)
    {
        foreach (HistogramLineTemplate lines in openMetrics ? _openMetricsHistogramLines : _textHistogramLines)
        {
            if (lines.Fits(name, boundaries))
            {
                return lines;
            }
        }

        return null;
    }

    /// <summary>
    /// Keeps <paramref name="lines"/>, in place of the lines kept for the same family name (its
    /// boundaries changed), else of the oldest where <see cref="MaxKeptHistogramLines"/> are kept.
    /// </summary>
    /// <remarks>The list is replaced whole (copy on write), so that a scrape reading it meanwhile reads a consistent one.</remarks>
    /// <param name="openMetrics">Whether OpenMetrics' lines, else text 0.0.4's.</param>
    /// <param name="lines">The lines to keep.</param>
    public void KeepHistogramLines(bool openMetrics, HistogramLineTemplate lines)
    {
        ref HistogramLineTemplate[] kept = ref openMetrics ? ref _openMetricsHistogramLines : ref _textHistogramLines;
        int replaced = Array.FindIndex(kept, k => string.Equals(k.Name, lines.Name, StringComparison.Ordinal));
        if (replaced < 0 && kept.Length < MaxKeptHistogramLines)
        {
            kept = [.. kept, lines];
            return;
        }

        HistogramLineTemplate[] next = replaced >= 0 ? [.. kept] : [.. kept.AsSpan(1)];
        if (replaced >= 0)
        {
            next[replaced] = lines;
        }
        else
        {
            next = [.. next, lines];
        }

        kept = next;
    }


    /// <summary>
    /// Renders <paramref name="scopeLabels"/> as they are, then <paramref name="tags"/>: each key
    /// as the naming layer names a tag's label (<see cref="ExportedNames.TagLabelName"/>: sanitized,
    /// and <c>tag_otel_scope_*</c> for a key that would name a scope label, so that no tag can pass
    /// for the scope), keys that sanitize alike merged into one label whose values are joined by
    /// <c>;</c> in the order of the original keys (OpenTelemetry's Prometheus compatibility
    /// specification), and labels whose value is empty left out.
    /// </summary>
    /// <param name="scratch">Where the block is rendered (cleared first): the writer's label-value
    /// escaping is the exposition's one escaping. The caller's, reused from block to block.</param>
    /// <param name="scopeLabels">Label names already valid, values already formatted.</param>
    /// <param name="tags">The series' tags, in any order.</param>
    public static LabelBlock Create(PrometheusTextWriter scratch, ReadOnlySpan<KeyValuePair<string, string>> scopeLabels, IEnumerable<KeyValuePair<string, object?>> tags)
    {
        // Ordered by original key first, so that merged values keep that order; then by label
        // name (OrderBy is stable), so that equal label sets render to equal text.
        List<KeyValuePair<string, string>> labels = [.. tags
            .OrderBy(static tag => tag.Key, StringComparer.Ordinal)
            .Select(static tag => new KeyValuePair<string, string>(ExportedNames.TagLabelName(tag.Key), ExportedNames.FormatLabelValue(tag.Value)))
            .OrderBy(static label => label.Key, StringComparer.Ordinal)];

        scratch.Clear();
        var rendered = new List<KeyValuePair<string, string>>(scopeLabels.Length + labels.Count);
        foreach (KeyValuePair<string, string> label in scopeLabels)
        {
            Append(scratch, rendered, label.Key, label.Value);
        }

        for (int i = 0; i < labels.Count;)
        {
            string name = labels[i].Key;
            string value = labels[i].Value;
            for (i++; i < labels.Count && string.Equals(labels[i].Key, name, StringComparison.Ordinal); i++)
            {
                value = value + ";" + labels[i].Value;
            }

            Append(scratch, rendered, name, value);
        }

        return new LabelBlock(scratch.WrittenSpan.ToArray(), [.. rendered]);
    }

    /// <inheritdoc/>
    public bool Equals(LabelBlock? other) =>
        other is not null && (ReferenceEquals(this, other) || (_hashCode == other._hashCode && _utf8.AsSpan().SequenceEqual(other._utf8)));

    /// <inheritdoc/>
    public override bool Equals(object? obj) => Equals(obj as LabelBlock);

    /// <inheritdoc/>
    public override int GetHashCode() => _hashCode;

    /// <inheritdoc/>
    public override string ToString() => Encoding.UTF8.GetString(_utf8);

    private static void Append(PrometheusTextWriter text, List<KeyValuePair<string, string>> rendered, string name, string value)
    {
        if (value.Length == 0)
        {
            return;
        }

        rendered.Add(new(name, value));
        if (!text.WrittenSpan.IsEmpty)
        {
            text.Write((byte)',');
        }

        text.Write(name);
        text.Write("=\"");
        text.WriteLabelValue(value);
        text.Write((byte)'"');
    }
}
