using ScalableMetrics.SeriesTables;

namespace ScalableMetrics.Naming;

/// <summary>
/// The exported identity of a series: its tags with a non-empty printed value, as (sanitized
/// label name, printed value) pairs sorted by label name (<see cref="ExportedNames"/>). Two tag
/// sets of one instrument with the same identity export as the same Prometheus series, so the
/// <see cref="SeriesTable{TSeries}"/> makes them one series.
/// </summary>
internal static class SeriesIdentity
{
    private static readonly Comparer<KeyValuePair<string, string>> s_byName =
        Comparer<KeyValuePair<string, string>>.Create(static (a, b) => string.CompareOrdinal(a.Key, b.Key));

    /// <summary>The labels <paramref name="tags"/> export as: sanitized names, printed values, empty values left out, sorted by name.</summary>
    public static KeyValuePair<string, string>[] Labels(TagSet tags)
    {
        var labels = new List<KeyValuePair<string, string>>(tags.Count);
        foreach (KeyValuePair<string, object?> tag in tags.AsSpan())
        {
            string value = ExportedNames.FormatLabelValue(tag.Value);
            if (value.Length > 0)
            {
                labels.Add(new(ExportedNames.SanitizeLabelName(tag.Key), value));
            }
        }

        labels.Sort(s_byName);
        return [.. labels];
    }

    /// <summary>
    /// A 32-bit hash of <paramref name="labels"/>, seeded per process (<see cref="HashCode"/>):
    /// equal label sets hash alike; unequal ones rarely, and never by a caller's choice.
    /// </summary>
    public static int Hash(ReadOnlySpan<KeyValuePair<string, string>> labels)
    {
        var hash = default(HashCode);
        foreach (KeyValuePair<string, string> label in labels)
        {
            hash.Add(label.Key, StringComparer.Ordinal);
            hash.Add(label.Value.Length);
            hash.Add(label.Value, StringComparer.Ordinal);
        }

        return hash.ToHashCode();
    }

    /// <summary>Whether two label sets (as <see cref="Labels"/> makes them) are equal: the same names with the same values, ordinal.</summary>
    public static bool Equal(ReadOnlySpan<KeyValuePair<string, string>> first, ReadOnlySpan<KeyValuePair<string, string>> second)
    {
        if (first.Length != second.Length)
        {
            return false;
        }

        for (int i = 0; i < first.Length; i++)
        {
            if (!string.Equals(first[i].Key, second[i].Key, StringComparison.Ordinal) || !string.Equals(first[i].Value, second[i].Value, StringComparison.Ordinal))
            {
                return false;
            }
        }

        return true;
    }
}
