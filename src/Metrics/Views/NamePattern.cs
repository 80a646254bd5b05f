using System.Text.RegularExpressions;

namespace ScalableMetrics.Views;

/// <summary>
/// A name or a wildcard pattern, matched as OpenTelemetry .NET's <c>AddMeter</c> matches meter
/// names (its <c>WildcardHelper</c>): without a wildcard, ordinally ignoring case; with one,
/// <c>*</c> matches any run of characters and <c>?</c> one, over the whole name, ignoring case.
/// </summary>
/// <remarks>Immutable and thread-safe.</remarks>
internal sealed class NamePattern
{
    private readonly string _text;
    private readonly Regex? _pattern;

    public NamePattern(string text)
    {
        _text = text;
        if (HasWildcard(text))
        {
            _pattern = new Regex(
                "^" + Regex.Escape(text).Replace("\\*", ".*", StringComparison.Ordinal).Replace("\\?", ".", StringComparison.Ordinal) + "$",
                RegexOptions.IgnoreCase | RegexOptions.CultureInvariant,
                TimeSpan.FromSeconds(1));
        }
    }

    /// <summary>Whether <paramref name="text"/> holds <c>*</c> or <c>?</c>.</summary>
    public static bool HasWildcard(string text) =>
        text.Contains('*', StringComparison.Ordinal) || text.Contains('?', StringComparison.Ordinal);

    public bool Matches(string name) =>
        _pattern?.IsMatch(name) ?? string.Equals(_text, name, StringComparison.OrdinalIgnoreCase);

    public override string ToString() => _text;
}
