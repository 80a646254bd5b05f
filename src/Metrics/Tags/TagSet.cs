using System.Collections;
using ScalableMetrics.Tags;

namespace ScalableMetrics;

/// <summary>
/// The tags (attributes, in OpenTelemetry's words; labels, in Prometheus') that identify one
/// series of an instrument: distinct non-empty keys, sorted by ordinal key, with non-null values.
/// </summary>
/// <remarks>
/// Immutable and thread-safe. Values are normalized as OpenTelemetry's attribute types: every
/// integral type (<see cref="nint"/> and <see cref="nuint"/> too) becomes <see cref="long"/>, a
/// <see cref="ulong"/> or <see cref="nuint"/> above <see cref="long.MaxValue"/> is refused,
/// <see cref="float"/> becomes <see cref="double"/>, and <see cref="string"/>, <see cref="bool"/>
/// and <see cref="double"/> stay as they are; any other type (<see cref="decimal"/>,
/// <see cref="Half"/>, an enum) is refused. Two tag
/// sets are equal when they hold the same keys with equal values, whatever order they were given in.
/// </remarks>
public sealed class TagSet : IReadOnlyList<KeyValuePair<string, object?>>, IEquatable<TagSet>
{
    private readonly KeyValuePair<string, object?>[] _tags;
    private readonly int _hashCode;

    /// <summary>The empty tag set: the series of measurements made without tags.</summary>
    public static TagSet Empty { get; } = new([]);

    private TagSet(KeyValuePair<string, object?>[] sortedNormalizedTags)
    {
        _tags = sortedNormalizedTags;
        _hashCode = TagSetComparer.Hash(sortedNormalizedTags);
    }

    /// <summary>The number of tags.</summary>
    public int Count => _tags.Length;

    /// <summary>The tag at <paramref name="index"/>, in ordinal key order.</summary>
    /// <param name="index">0-based position.</param>
    /// <exception cref="IndexOutOfRangeException"><paramref name="index"/> is negative or not below <see cref="Count"/>.</exception>
    public KeyValuePair<string, object?> this[int index] => _tags[index];

    /// <summary>
    /// Validates and normalizes <paramref name="tags"/> into a tag set.
    /// </summary>
    /// <param name="tags">Tags in any order.</param>
    /// <returns>The tag set; <see cref="Empty"/> for no tags.</returns>
    /// <exception cref="ArgumentException">A key is null or empty, a key appears twice, or a value is
    /// null or not a string, bool, integral number (at most <see cref="long.MaxValue"/>), float or double. The message names the key.</exception>
    public static TagSet Create(params ReadOnlySpan<KeyValuePair<string, object?>> tags)
    {
        if (tags.IsEmpty)
        {
            return Empty;
        }

        var normalized = new KeyValuePair<string, object?>[tags.Length];
        for (int i = 0; i < tags.Length; i++)
        {
            string key = tags[i].Key;
            if (string.IsNullOrEmpty(key))
            {
                throw new ArgumentException($"Tag keys must be non-empty strings; the tag at position {i} has a {(key is null ? "null" : "empty")} key.", nameof(tags));
            }

            normalized[i] = new(key, TagValues.Normalize(key, tags[i].Value));
        }

        Array.Sort(normalized, static (a, b) => string.CompareOrdinal(a.Key, b.Key));
        for (int i = 1; i < normalized.Length; i++)
        {
            if (string.Equals(normalized[i - 1].Key, normalized[i].Key, StringComparison.Ordinal))
            {
                throw new ArgumentException($"Tag key {ExceptionText.Quote(normalized[i].Key)} appears more than once.", nameof(tags));
            }
        }

        return new TagSet(normalized);
    }

    /// <summary>The tags as a span, in ordinal key order, without copying.</summary>
    /// <returns>A read-only view of the tags.</returns>
    public ReadOnlySpan<KeyValuePair<string, object?>> AsSpan() => _tags;

    /// <inheritdoc/>
    public IEnumerator<KeyValuePair<string, object?>> GetEnumerator() => ((IEnumerable<KeyValuePair<string, object?>>)_tags).GetEnumerator();

    IEnumerator IEnumerable.GetEnumerator() => GetEnumerator();

    /// <inheritdoc/>
    public bool Equals(TagSet? other) =>
        other is not null && (ReferenceEquals(this, other) || (_hashCode == other._hashCode && TagSetComparer.MatchesStored(_tags, other._tags)));

    /// <inheritdoc/>
    public override bool Equals(object? obj) => Equals(obj as TagSet);

    /// <inheritdoc/>
    public override int GetHashCode() => _hashCode;

    /// <summary>The tags as <c>{key=value, ...}</c>, for diagnostics.</summary>
    /// <returns>A readable rendering of the tags.</returns>
    public override string ToString() => "{" + string.Join(", ", _tags.Select(t => $"{t.Key}={t.Value}")) + "}";
}
