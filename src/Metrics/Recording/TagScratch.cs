namespace ScalableMetrics.Recording;

/// <summary>
/// A per-thread buffer where a measurement's tags and its instrument's and meter's tags are put
/// together for one lookup: the registry copies what it keeps, so the buffer is reused by the
/// thread's next measurement and the merge allocates nothing once the buffer is large enough.
/// </summary>
internal static class TagScratch
{
    // The runtime's t_ prefix for a thread static; the naming rule cannot tell one from a static.
#pragma warning disable IDE1006
    [ThreadStatic]
    private static KeyValuePair<string, object?>[]? t_buffer;
#pragma warning restore IDE1006

    /// <summary>The measured tags with <paramref name="source"/>'s added (<see cref="Merge"/>), or as they are where the source has none.</summary>
    public static ReadOnlySpan<KeyValuePair<string, object?>> WithSource(ReadOnlySpan<KeyValuePair<string, object?>> measured, KeyValuePair<string, object?>[] source) =>
        source.Length == 0 ? measured : Merge(measured, source);

    /// <summary>
    /// <paramref name="measured"/>, then each of <paramref name="source"/> whose key no measured tag
    /// has: a measurement's own tag wins over its instrument's and meter's, as the more specific.
    /// </summary>
    private static ReadOnlySpan<KeyValuePair<string, object?>> Merge(ReadOnlySpan<KeyValuePair<string, object?>> measured, KeyValuePair<string, object?>[] source)
    {
        int needed = measured.Length + source.Length;
        KeyValuePair<string, object?>[] buffer = t_buffer is { } existing && existing.Length >= needed
            ? existing
            : t_buffer = new KeyValuePair<string, object?>[Math.Max(16, needed)];

        measured.CopyTo(buffer);
        int count = measured.Length;
        foreach (KeyValuePair<string, object?> tag in source)
        {
            if (!HasKey(measured, tag.Key))
            {
                buffer[count++] = tag;
            }
        }

        return buffer.AsSpan(0, count);
    }

    private static bool HasKey(ReadOnlySpan<KeyValuePair<string, object?>> tags, string key)
    {
        foreach (KeyValuePair<string, object?> tag in tags)
        {
            if (string.Equals(tag.Key, key, StringComparison.Ordinal))
            {
                return true;
            }
        }

        return false;
    }
}
