using System.Numerics;

namespace ScalableMetrics.Tags;

/// <summary>
/// Compares tag sets, and tag sets with the caller's tags as given (any order, not yet
/// normalized), so that a series lookup on the hot path hashes and compares the caller's tags in
/// place: no key is allocated, and nothing is copied or sorted.
/// </summary>
/// <remarks>
/// The hash is the sum of one hash per tag, so that it does not depend on the order of the tags.
/// Equality pairs every caller tag with a distinct stored tag of the same key and an equal value;
/// with equal counts, that is a one-to-one match, and a caller's repeated key never matches.
/// </remarks>
internal sealed class TagSetComparer : IEqualityComparer<TagSet>, IAlternateEqualityComparer<ReadOnlySpan<KeyValuePair<string, object?>>, TagSet>
{
    /// <summary>Tag sets up to this size are matched with a bit mask of paired stored tags; larger ones with an array.</summary>
    private const int MaskedMatchLimit = 64;

    public static TagSetComparer Instance { get; } = new();

    // Empty for good (nothing is ever added): every string hashed from its characters.
    private static readonly StringHashCache s_noStrings = new();

    public static int Hash(ReadOnlySpan<KeyValuePair<string, object?>> tags) => Hash(tags, s_noStrings);

    /// <summary>
    /// <see cref="Hash(ReadOnlySpan{KeyValuePair{string, object}})"/>, the same value, with the
    /// hashes of keys and string values that <paramref name="strings"/> holds taken from it.
    /// </summary>
    public static int Hash(ReadOnlySpan<KeyValuePair<string, object?>> tags, StringHashCache strings)
    {
        int hash = tags.Length;
        foreach (KeyValuePair<string, object?> tag in tags)
        {
            int keyHash = tag.Key is { } key ? strings.Hash(key) : 0;
            int valueHash = tag.Value is string text ? strings.Hash(text) : TagValues.Hash(tag.Value);
            hash += HashCode.Combine(keyHash, valueHash);
        }

        return hash;
    }

    /// <summary>Whether <paramref name="tags"/> (the caller's, any order) name the same series as <paramref name="stored"/> (normalized, distinct keys).</summary>
    public static bool MatchesStored(ReadOnlySpan<KeyValuePair<string, object?>> stored, ReadOnlySpan<KeyValuePair<string, object?>> tags)
    {
        if (stored.Length != tags.Length)
        {
            return false;
        }

        if (stored.Length > MaskedMatchLimit)
        {
            return MatchesStoredLarge(stored, tags);
        }

        ulong paired = 0;
        for (int i = 0; i < tags.Length; i++)
        {
            // Callers usually pass tags in the same order every time: try the same position first.
            int j = IndexOfKey(stored, tags[i].Key, i);
            if (j < 0 || (paired & (1UL << j)) != 0 || !TagValues.EqualsNormalized(stored[j].Value, tags[i].Value))
            {
                return false;
            }

            paired |= 1UL << j;
        }

        return BitOperations.PopCount(paired) == stored.Length;
    }

    private static bool MatchesStoredLarge(ReadOnlySpan<KeyValuePair<string, object?>> stored, ReadOnlySpan<KeyValuePair<string, object?>> tags)
    {
        var paired = new bool[stored.Length];
        for (int i = 0; i < tags.Length; i++)
        {
            int j = IndexOfKey(stored, tags[i].Key, i);
            if (j < 0 || paired[j] || !TagValues.EqualsNormalized(stored[j].Value, tags[i].Value))
            {
                return false;
            }

            paired[j] = true;
        }

        return true;
    }

    /// <summary>The index of a tag of <paramref name="stored"/> whose key is <paramref name="key"/> (ordinal): <paramref name="hint"/> where that tag's is (callers usually pass their tags in the same order every time), else the first; -1 where none is. Also <see cref="RecentTagSets"/>' match by value.</summary>
    public static int IndexOfKey(ReadOnlySpan<KeyValuePair<string, object?>> stored, string? key, int hint)
    {
        if (hint < stored.Length && string.Equals(stored[hint].Key, key, StringComparison.Ordinal))
        {
            return hint;
        }

        for (int j = 0; j < stored.Length; j++)
        {
            if (string.Equals(stored[j].Key, key, StringComparison.Ordinal))
            {
                return j;
            }
        }

        return -1;
    }

    public bool Equals(TagSet? x, TagSet? y) => x is null ? y is null : x.Equals(y);

    public int GetHashCode(TagSet obj) => obj.GetHashCode();

    public bool Equals(ReadOnlySpan<KeyValuePair<string, object?>> alternate, TagSet other) => MatchesStored(other.AsSpan(), alternate);

    public int GetHashCode(ReadOnlySpan<KeyValuePair<string, object?>> alternate) => Hash(alternate);

    public TagSet Create(ReadOnlySpan<KeyValuePair<string, object?>> alternate) => TagSet.Create(alternate);
}
