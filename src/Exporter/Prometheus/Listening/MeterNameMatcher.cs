using System.Text.RegularExpressions;

namespace ScalableMetrics.Exporter.Listening;

/// <summary>
/// Whether a meter's name is one of <c>ScalableMetricsOptions.Meters</c>, by OpenTelemetry
/// .NET's <c>AddMeter</c> rule (its <c>WildcardHelper</c>): names without a wildcard compare
/// ordinally ignoring case; in the others <c>*</c> matches any run of characters and <c>?</c> one,
/// the whole name, ignoring case. So a meter is taken here exactly when the same list given to
/// a <c>MeterProvider</c> would take it there.
/// </summary>
/// <remarks>Thread-safe: immutable after construction.</remarks>
internal sealed class MeterNameMatcher
{
    private readonly HashSet<string> _names = new(StringComparer.OrdinalIgnoreCase);
    private readonly Regex? _patterns;

    public MeterNameMatcher(IEnumerable<string> namesAndPatterns)
    {
        var patterns = new List<string>();
        foreach (string name in namesAndPatterns)
        {
            if (name.Contains('*', StringComparison.Ordinal) || name.Contains('?', StringComparison.Ordinal))
            {
                patterns.Add(Regex.Escape(name).Replace("\\*", ".*", StringComparison.Ordinal).Replace("\\?", ".", StringComparison.Ordinal));
            }
            else
            {
                _names.Add(name);
            }
        }

        if (patterns.Count > 0)
        {
            _patterns = new Regex(
                "^(?:" + string.Join('|', patterns) + ")$",
                RegexOptions.IgnoreCase | RegexOptions.CultureInvariant | RegexOptions.Compiled,
                TimeSpan.FromSeconds(1));
        }
    }

    /// <summary>Whether no name was given: nothing matches.</summary>
    public bool IsEmpty => _names.Count == 0 && _patterns is null;

    public bool Matches(string meterName) =>
        _names.Contains(meterName) || (_patterns is not null && _patterns.IsMatch(meterName));
}
