namespace ScalableMetrics.Recording;

/// <summary>
/// A per-thread buffer where a measurement's tags and its instrument's and meter's tags are put
/// together for one lookup: the registry copies what it keeps, so the buffer is reused by the
/// thread's next measurement and the merge allocates nothing once the buffer is large enough.
/// </summary>
/// <remarks>
/// A measured tag whose value is null is left out here, as if it were not given (a source's tag
/// of its key then applies): the listener cannot throw into the instrumented code, and
/// OpenTelemetry keeps such a measurement, which its Prometheus exporter writes with the label
/// empty, as Prometheus stores a label that is not there. Left out, it names the series of the
/// other tags, never a second series that a scrape would show as the same one. The registry's own
/// API, which takes no merged tags, still refuses a null value.
/// </remarks>
internal static class TagScratch
{
    // The runtime's t_ prefix for a thread static; the naming rule cannot tell one from a static.
#pragma warning disable IDE1006
    [ThreadStatic]
    private static KeyValuePair<string, object?>[]? t_buffer;
#pragma warning restore IDE1006

    /// <summary>The measured tags with <paramref name="source"/>'s added and those of a null value left out
    /// (<see cref="Merge"/>), or as they are where the source has none and no value is null.</summary>
    /// <param name="measured">The measurement's tags, as given.</param>
    /// <param name="source">The source's tags, with distinct keys and no null value.</param>
    public static ReadOnlySpan<KeyValuePair<string, object?>> WithSource(ReadOnlySpan<KeyValuePair<string, object?>> measured, KeyValuePair<string, object?>[] source) =>
        source.Length == 0 && !HasNullValue(measured) ? measured : Merge(measured, source);

    /// <summary>
    /// <paramref name="measured"/> but those of a null value, then each of <paramref name="source"/>
    /// whose key no measured tag of a value has: a measurement's own tag wins over its instrument's
    /// and meter's, as the more specific.
    /// </summary>
    private static ReadOnlySpan<KeyValuePair<string, object?>> Merge(ReadOnlySpan<KeyValuePair<string, object?>> measured, KeyValuePair<string, object?>[] source)
    {
        int needed = measured.Length + source.Length;
        KeyValuePair<string, object?>[] buffer = t_buffer is { } existing && existing.Length >= needed
            ? existing
            : t_buffer = new KeyValuePair<string, object?>[Math.Max(16, needed)];

        int count = 0;
        foreach (KeyValuePair<string, object?> tag in measured)
        {
            if (tag.Value is not null)
            {
                buffer[count++] = tag;
            }
        }

        foreach (KeyValuePair<string, object?> tag in source)
        {
            if (!HasKey(measured, tag.Key))
            {
                buffer[count++] = tag;
            }
        }

        return buffer.AsSpan(0, count);
    }

    // Whether a tag of a value (not null) has key: a null one is as if it were not given.
    private static bool HasKey(ReadOnlySpan<KeyValuePair<string, object?>> tags, string key)
    {
        foreach (KeyValuePair<string, object?> tag in tags)
        {
            if (tag.Value is not null && string.Equals(tag.Key, key, StringComparison.Ordinal))
            {
                return true;
            }
        }

        return false;
    }

    private static bool HasNullValue(ReadOnlySpan<KeyValuePair<string, object?>> tags)
    {
        foreach (KeyValuePair<string, object?> tag in tags)
        {
            if (tag.Value is null)
            {
                return true;
            }
        }

        return false;
    }
}
