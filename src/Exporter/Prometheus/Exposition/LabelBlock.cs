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
/// <c>model.LabelSet</c>: a label with an empty value is no label). Immutable and thread-safe:
/// what a format keeps per series (its histogram lines, its encoded labels) its writer keeps
/// (<see cref="LabelBlockCache{TValue}"/>), so that one block serves every format and every writer.
/// </remarks>
internal sealed class LabelBlock : IEquatable<LabelBlock>
{
    private readonly byte[] _utf8;
    private readonly KeyValuePair<string, string>[] _labels;
    private readonly int _hashCode;

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

    /// <summary>The labels as rendered, name and value unescaped, in the order of <see cref="Utf8"/>: what the protobuf exposition encodes.</summary>
    public IReadOnlyList<KeyValuePair<string, string>> Labels => _labels;

    /// <summary>
    /// Renders <paramref name="scopeLabels"/> as they are, then <paramref name="tags"/>: each key
    /// as the naming layer names a tag's label (<see cref="ExportedNames.TagLabelName"/>: sanitized,
    /// and <c>tag_</c> before a key that would name a scope label, a bucket's <c>le</c> or a
    /// summary's <c>quantile</c>, so that no tag can pass for the scope or be written twice), keys
    /// that sanitize alike merged into one label whose values are joined by
    /// <c>;</c> in the order of the original keys (OpenTelemetry's Prometheus compatibility
    /// specification; <see cref="MergedLabels"/>), and labels whose value is empty left out.
    /// </summary>
    /// <param name="scratch">Where the block is rendered (cleared first): the writer's label-value
    /// escaping is the exposition's one escaping. The caller's, reused from block to block.</param>
    /// <param name="scopeLabels">Label names already valid, values already formatted.</param>
    /// <param name="tags">The series' tags, in any order.</param>
    public static LabelBlock Create(PrometheusTextWriter scratch, ReadOnlySpan<KeyValuePair<string, string>> scopeLabels, IEnumerable<KeyValuePair<string, object?>> tags) =>
        Create(scratch, scopeLabels, tags, EscapingScheme.Underscores);

    /// <summary>
    /// Renders the labels as a scrape of <paramref name="scheme"/> under a UTF-8 translation writes
    /// them: <see cref="EscapingScheme.Underscores"/> as <see cref="Create(PrometheusTextWriter, ReadOnlySpan{KeyValuePair{string, string}}, IEnumerable{KeyValuePair{string, object?}})"/>
    /// does; any other scheme each tag key as it is (<see cref="ExportedNames.Utf8TagLabelName"/>),
    /// escaped as the scheme escapes a label name (<see cref="NameEscaping.EscapeLabel"/>, which keeps apart
    /// every two keys the default translation keeps apart, so series stay apart), and between
    /// double quotes in the text where not legacy-valid (<c>"http.route"="/a"</c>, under <c>allow-utf-8</c> only).
    /// Keys that come out alike are merged as they are under underscores.
    /// </summary>
    /// <param name="scratch">Where the block is rendered (cleared first).</param>
    /// <param name="scopeLabels">Label names already valid, values already formatted.</param>
    /// <param name="tags">The series' tags, in any order.</param>
    /// <param name="scheme">The escaping of the scrape.</param>
    public static LabelBlock Create(PrometheusTextWriter scratch, ReadOnlySpan<KeyValuePair<string, string>> scopeLabels, IEnumerable<KeyValuePair<string, object?>> tags, EscapingScheme scheme)
    {
        Func<string, string> labelName = scheme == EscapingScheme.Underscores
            ? ExportedNames.TagLabelName
            : key => NameEscaping.EscapeLabel(ExportedNames.Utf8TagLabelName(key), scheme);
        List<KeyValuePair<string, string>> labels = MergedLabels(tags, labelName);

        scratch.Clear();
        var rendered = new List<KeyValuePair<string, string>>(scopeLabels.Length + labels.Count);
        foreach (KeyValuePair<string, string> label in scopeLabels)
        {
            Append(scratch, rendered, label.Key, label.Value);
        }

        foreach (KeyValuePair<string, string> label in labels)
        {
            Append(scratch, rendered, label.Key, label.Value);
        }

        return new LabelBlock(scratch.WrittenSpan.ToArray(), [.. rendered]);
    }

    /// <summary>
    /// The labels <paramref name="attributes"/> are written as, by OpenTelemetry's Prometheus
    /// compatibility specification's rules for attributes ("Metric Attributes", which a meter's
    /// scope attributes follow too, <see cref="ScopeLabels"/>): each key named by
    /// <paramref name="labelName"/>, each value printed (<see cref="ExportedNames.FormatLabelValue"/>),
    /// sorted by label name, and keys that come out as one label name merged into one label whose
    /// values are joined by <c>;</c> in the order of the original keys. The one place either a
    /// series' tags or a scope's attributes are merged.
    /// </summary>
    /// <param name="attributes">The tags or attributes, in any order.</param>
    /// <param name="labelName">The label name of a key.</param>
    /// <returns>A new list; labels with an empty value are kept (<see cref="Create(PrometheusTextWriter, ReadOnlySpan{KeyValuePair{string, string}}, IEnumerable{KeyValuePair{string, object?}}, EscapingScheme)"/> leaves them out).</returns>
    public static List<KeyValuePair<string, string>> MergedLabels(IEnumerable<KeyValuePair<string, object?>> attributes, Func<string, string> labelName)
    {
        // Ordered by original key first, so that merged values keep that order; then by label
        // name (OrderBy is stable), so that equal label sets render to equal text.
        List<KeyValuePair<string, string>> labels = [.. attributes
            .OrderBy(static tag => tag.Key, StringComparer.Ordinal)
            .Select(tag => new KeyValuePair<string, string>(labelName(tag.Key), ExportedNames.FormatLabelValue(tag.Value)))
            .OrderBy(static label => label.Key, StringComparer.Ordinal)];

        // Merged in place: each run of one label name becomes its first entry.
        int merged = 0;
        for (int i = 0; i < labels.Count;)
        {
            string name = labels[i].Key;
            string value = labels[i].Value;
            for (i++; i < labels.Count && string.Equals(labels[i].Key, name, StringComparison.Ordinal); i++)
            {
                value = value + ";" + labels[i].Value;
            }

            labels[merged++] = new(name, value);
        }

        labels.RemoveRange(merged, labels.Count - merged);
        return labels;
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

        text.WriteName(name, label: true);
        text.Write("=\"");
        text.WriteLabelValue(value);
        text.Write((byte)'"');
    }
}
