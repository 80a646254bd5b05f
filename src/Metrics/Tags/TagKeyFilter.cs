namespace ScalableMetrics.Tags;

/// <summary>
/// The tag keys a view keeps (<see cref="MetricView.TagKeys"/>) or drops
/// (<see cref="MetricView.ExcludedTagKeys"/>): applied by a series table to a tag set met for the
/// first time, so that the series' identity holds only the kept keys.
/// </summary>
/// <remarks>Immutable and thread-safe. Keys compare ordinally, as OpenTelemetry compares them.</remarks>
internal sealed class TagKeyFilter
{
    private readonly HashSet<string> _keys;
    private readonly bool _keepListed;

    private TagKeyFilter(IEnumerable<string> keys, bool keepListed)
    {
        _keys = new HashSet<string>(keys, StringComparer.Ordinal);
        _keepListed = keepListed;
    }

    /// <summary>A filter that keeps only <paramref name="keys"/>.</summary>
    public static TagKeyFilter KeepOnly(IEnumerable<string> keys) => new(keys, keepListed: true);

    /// <summary>A filter that keeps every key but <paramref name="keys"/>.</summary>
    public static TagKeyFilter Exclude(IEnumerable<string> keys) => new(keys, keepListed: false);

    /// <summary>Whether a series keeps the tag of <paramref name="key"/>.</summary>
    public bool Keeps(string key) => _keys.Contains(key) == _keepListed;

    /// <summary><paramref name="tags"/> without the tags this filter drops: the same object where it drops none.</summary>
    public TagSet Apply(TagSet tags)
    {
        int kept = 0;
        foreach (KeyValuePair<string, object?> tag in tags.AsSpan())
        {
            if (Keeps(tag.Key))
            {
                kept++;
            }
        }

        if (kept == tags.Count)
        {
            return tags;
        }

        var keptTags = new KeyValuePair<string, object?>[kept];
        int next = 0;
        foreach (KeyValuePair<string, object?> tag in tags.AsSpan())
        {
            if (Keeps(tag.Key))
            {
                keptTags[next++] = tag;
            }
        }

        return TagSet.Create(keptTags);
    }

    /// <summary>The filter, for messages.</summary>
    public override string ToString() => (_keepListed ? "keep only " : "all but ") + "[" + string.Join(", ", _keys) + "]";
}
