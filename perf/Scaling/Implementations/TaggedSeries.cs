using System.Globalization;

namespace ScalableMetrics.Scaling.Implementations;

/// <summary>One series of a tagged workload as an implementation read it back: its tags, as one key, and what it holds.</summary>
/// <param name="Key">The tags, sorted by key, as <c>key=value</c> joined by commas (<see cref="KeyOf(IEnumerable{KeyValuePair{string, object}})"/>).</param>
/// <param name="Count">A histogram's count; a counter's value.</param>
/// <param name="Sum">A histogram's sum; 0 for a counter.</param>
internal readonly record struct TaggedSeries(string Key, long Count, double Sum)
{
    /// <summary>The key of a tag set, whatever order its tags are in and whatever type its values are (a boxed 200 and "200" give one key).</summary>
    public static string KeyOf(IEnumerable<KeyValuePair<string, object?>> tags) =>
        string.Join(",", tags.OrderBy(static t => t.Key, StringComparer.Ordinal).Select(static t => t.Key + "=" + Convert.ToString(t.Value, CultureInfo.InvariantCulture)));

    /// <summary>The key of the tag set whose keys are <paramref name="keys"/> and values <paramref name="values"/>, in the same order.</summary>
    public static string KeyOf(IReadOnlyList<string> keys, IReadOnlyList<string> values) =>
        KeyOf(keys.Select((key, i) => new KeyValuePair<string, object?>(key, values[i])));
}
