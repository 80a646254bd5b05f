using ScalableMetrics.Naming;

namespace ScalableMetrics.Tags;

/// <summary>
/// The limits and rules a tag set meets before it names a new series: at most
/// <see cref="MaxTags"/> tags, keys of at most <see cref="MaxKeyLength"/> characters, string values
/// of at most <see cref="MaxValueLength"/>, no two keys that export as one label name, and no key
/// named like a label the exposition writes itself or starting with <c>__</c>, Prometheus' own
/// (<see cref="ExportedNames.IsReservedLabel"/>).
/// </summary>
/// <remarks>Immutable and thread-safe. <see cref="Validate"/> allocates nothing unless it throws,
/// so that the path past an instrument's series limit stays allocation-free.</remarks>
internal sealed class TagLimits(int maxTags, int maxKeyLength, int maxValueLength)
{
    public int MaxTags { get; } = maxTags;

    public int MaxKeyLength { get; } = maxKeyLength;

    public int MaxValueLength { get; } = maxValueLength;

    /// <summary>The tag keys a view keeps or drops (<see cref="MetricView"/>), applied when a tag set
    /// names a series the first time; null where every key is kept.</summary>
    public TagKeyFilter? KeyFilter { get; private init; }

    /// <summary>These limits with <paramref name="filter"/>: one instrument's, under a view.</summary>
    public TagLimits With(TagKeyFilter? filter) =>
        filter is null ? this : new TagLimits(MaxTags, MaxKeyLength, MaxValueLength) { KeyFilter = filter };

    /// <summary>Checks <paramref name="tags"/> (the caller's, any order, not yet normalized).</summary>
    /// <exception cref="ArgumentException">The tags break a rule; the message names the tag, its long input cut.</exception>
    public void Validate(ReadOnlySpan<KeyValuePair<string, object?>> tags)
    {
        if (tags.Length > MaxTags)
        {
            throw new ArgumentException($"A series has at most {MaxTags} tags ({nameof(MetricRegistryOptions)}.{nameof(MetricRegistryOptions.MaxTagsPerSeries)}); {tags.Length} were given.", nameof(tags));
        }

        for (int i = 0; i < tags.Length; i++)
        {
            string key = tags[i].Key;
            object? value = tags[i].Value;
            if (string.IsNullOrEmpty(key))
            {
                throw new ArgumentException($"Tag keys must be non-empty strings; the tag at position {i} has a {(key is null ? "null" : "empty")} key.", nameof(tags));
            }

            if (key.Length > MaxKeyLength)
            {
                throw new ArgumentException($"Tag key {ExceptionText.Quote(key)} is longer than {MaxKeyLength} characters ({nameof(MetricRegistryOptions)}.{nameof(MetricRegistryOptions.MaxTagKeyLength)}).", nameof(tags));
            }

            TagValues.Validate(key, value);
            if (value is string text && text.Length > MaxValueLength)
            {
                throw new ArgumentException($"The value of tag {ExceptionText.Quote(key)}, {ExceptionText.Quote(text)}, is longer than {MaxValueLength} characters ({nameof(MetricRegistryOptions)}.{nameof(MetricRegistryOptions.MaxTagValueLength)}).", nameof(tags));
            }

            if (ExportedNames.IsReservedLabel(key))
            {
                throw new ArgumentException(
                    key.StartsWith("__", StringComparison.Ordinal)
                        ? $"Tag key {ExceptionText.Quote(key)} is reserved: it starts with '__', the prefix of the labels Prometheus keeps for its own."
                        : $"Tag key {ExceptionText.Quote(key)} is reserved: after sanitizing it names a label the exposition writes itself ('{ExportedNames.SanitizeLabelName(key)}'; le, quantile, otel_metric_overflow, otel_scope_*).",
                    nameof(tags));
            }

            for (int j = 0; j < i; j++)
            {
                string earlier = tags[j].Key;
                if (string.Equals(earlier, key, StringComparison.Ordinal))
                {
                    throw new ArgumentException($"Tag key {ExceptionText.Quote(key)} appears more than once.", nameof(tags));
                }

                if (ExportedNames.LabelNamesEqual(earlier, key))
                {
                    throw new ArgumentException(
                        $"Tag keys {ExceptionText.Quote(earlier)} and {ExceptionText.Quote(key)} export as the same label name '{ExportedNames.SanitizeLabelName(key)}'; one series cannot carry both.",
                        nameof(tags));
                }
            }
        }
    }
}
