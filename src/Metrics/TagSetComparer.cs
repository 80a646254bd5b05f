namespace ScalableMetrics;

/// <summary>
/// Compares tag sets, and tag sets with spans of caller tags sorted by key but not yet normalized,
/// so that a series lookup on the hot path hashes and compares the caller's tags in place,
/// without allocating a key.
/// </summary>
internal sealed class TagSetComparer : IEqualityComparer<TagSet>, IAlternateEqualityComparer<ReadOnlySpan<KeyValuePair<string, object?>>, TagSet>
{
    public static TagSetComparer Instance { get; } = new();

    public static int Hash(ReadOnlySpan<KeyValuePair<string, object?>> sortedTags)
    {
        var hash = default(HashCode);
        foreach (KeyValuePair<string, object?> tag in sortedTags)
        {
            hash.Add(tag.Key is null ? 0 : string.GetHashCode(tag.Key, StringComparison.Ordinal));
            hash.Add(TagValues.Hash(tag.Value));
        }

        return hash.ToHashCode();
    }

    /// <summary>Whether <paramref name="sortedTags"/> (caller's, sorted) name the same series as <paramref name="stored"/> (normalized).</summary>
    public static bool SortedEqual(ReadOnlySpan<KeyValuePair<string, object?>> stored, ReadOnlySpan<KeyValuePair<string, object?>> sortedTags)
    {
        if (stored.Length != sortedTags.Length)
        {
            return false;
        }

        for (int i = 0; i < stored.Length; i++)
        {
            if (!string.Equals(stored[i].Key, sortedTags[i].Key, StringComparison.Ordinal) || !TagValues.EqualsNormalized(stored[i].Value, sortedTags[i].Value))
            {
                return false;
            }
        }

        return true;
    }

    public bool Equals(TagSet? x, TagSet? y) => x is null ? y is null : x.Equals(y);

    public int GetHashCode(TagSet obj) => obj.GetHashCode();

    public bool Equals(ReadOnlySpan<KeyValuePair<string, object?>> alternate, TagSet other) => SortedEqual(other.AsSpan(), alternate);

    public int GetHashCode(ReadOnlySpan<KeyValuePair<string, object?>> alternate) => Hash(alternate);

    public TagSet Create(ReadOnlySpan<KeyValuePair<string, object?>> alternate) => TagSet.Create(alternate);
}
