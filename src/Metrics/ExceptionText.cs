namespace ScalableMetrics;

/// <summary>
/// Caller input as exception messages quote it: cut to <see cref="MaxQuotedLength"/> characters,
/// so that a 10 MB name or tag value does not become a 10 MB message (and log line).
/// </summary>
internal static class ExceptionText
{
    /// <summary>The most characters of one input a message quotes.</summary>
    public const int MaxQuotedLength = 64;

    /// <summary><c>'text'</c>, or <c>'first 64 characters…' (N chars)</c> when longer; <c>null</c> for null.</summary>
    public static string Quote(string? text)
    {
        if (text is null)
        {
            return "null";
        }

        if (text.Length <= MaxQuotedLength)
        {
            return $"'{text}'";
        }

        // Never end the quote between the two halves of a surrogate pair.
        int cut = char.IsHighSurrogate(text[MaxQuotedLength - 1]) ? MaxQuotedLength - 1 : MaxQuotedLength;
        return $"'{text.AsSpan(0, cut)}…' ({text.Length} chars)";
    }
}
