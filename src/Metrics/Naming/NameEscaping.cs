using System.Globalization;
using System.Text;

namespace ScalableMetrics.Naming;

/// <summary>
/// Prometheus' legacy name character sets and the escaping schemes of its "UTF-8 metric and label
/// name escaping schemes" document, as prometheus/common's <c>model.EscapeName</c> and
/// <c>EscapeMetricFamily</c> apply them to an exposition: a name already legacy-valid is left as
/// it is under every scheme; any other is escaped. Thread-safe (no state).
/// </summary>
/// <remarks>
/// Where the document and prometheus/common differ, prometheus/common is followed, as it is what a
/// Prometheus server unescapes: <c>dots</c> writes a character outside the legacy set (other than
/// <c>.</c> and <c>_</c>) as <c>__</c>, and <c>values</c> writes code points in lower-case hexadecimal
/// (<c>U__metric_2e_name</c>, which the document spells <c>U__metric_2E_name</c>; both decode to <c>metric.name</c>).
/// A label name is legacy-valid without <c>:</c>, which the text formats' grammar does not allow in one,
/// so a <c>:</c> in a label name is escaped as any other such character.
/// </remarks>
internal static class NameEscaping
{
    /// <summary>Whether <paramref name="name"/> matches <c>[a-zA-Z_:][a-zA-Z0-9_:]*</c>.</summary>
    public static bool IsLegacyMetricName(ReadOnlySpan<char> name) => IsLegacy(name, label: false);

    /// <summary>Whether <paramref name="name"/> matches <c>[a-zA-Z_][a-zA-Z0-9_]*</c>.</summary>
    public static bool IsLegacyLabelName(ReadOnlySpan<char> name) => IsLegacy(name, label: true);

    /// <summary>
    /// <paramref name="name"/> as <paramref name="scheme"/> writes it: as it is where it is
    /// legacy-valid or the scheme is <see cref="EscapingScheme.AllowUtf8"/>; otherwise
    /// <c>underscores</c>: every character outside the legacy set (a surrogate pair is one) <c>_</c>;
    /// <c>dots</c>: <c>_</c> doubled, <c>.</c> as <c>_dot_</c>, any other outside the set <c>__</c>;
    /// <c>values</c>: <c>U__</c>, then <c>_</c> doubled and any other outside the set its code point
    /// in hexadecimal between underscores (a lone surrogate <c>_FFFD_</c>).
    /// </summary>
    /// <param name="name">A metric or label name.</param>
    /// <param name="scheme">The scheme.</param>
    /// <param name="label">Whether it is a label name (<c>:</c> is then outside the set).</param>
    public static string Escape(string name, EscapingScheme scheme, bool label = false) =>
        name.Length == 0 || scheme == EscapingScheme.AllowUtf8 || IsLegacy(name, label) ? name : EscapeAlways(name, scheme, label);

    /// <summary>
    /// A tag's label name (<see cref="ExportedNames.Utf8TagLabelName"/>) as <paramref name="scheme"/> writes it: as
    /// <see cref="Escape"/> does, but where a legacy-valid name could be taken for another's escape, that name is escaped
    /// too, so that two keys the default translation tells apart never come out alike. Under <c>dots</c>, a name that
    /// starts with a digit gets <c>key_</c> before it (as <see cref="ExportedNames.SanitizeLabelName"/> does), and a
    /// legacy-valid name holding <c>__</c> or <c>_dot_</c> is escaped (<c>a_dot_b</c> is <c>a__dot__b</c>, not
    /// <c>a.b</c>'s <c>a_dot_b</c>); under <c>values</c>, a legacy-valid name starting with <c>U__</c> is escaped.
    /// </summary>
    /// <remarks>
    /// Under <c>dots</c> every escaped name is a sequence of tokens read back one way (<c>__</c>, <c>_dot_</c>, a legacy
    /// character other than <c>_</c>), and a name left as it is holds neither token: equal outputs come from keys that
    /// differ only where one has <c>_</c> and the other a character outside the set, which the default translation
    /// writes alike (both <c>_</c>) and the registry keeps as one series. Under <c>values</c> the escape is reversible
    /// and always starts with <c>U__</c>. prometheus/common leaves every legacy-valid name as it is; this differs
    /// from it only for those names.
    /// </remarks>
    /// <param name="name">The label name under a UTF-8 translation.</param>
    /// <param name="scheme">The scheme.</param>
    public static string EscapeLabel(string name, EscapingScheme scheme)
    {
        switch (scheme)
        {
            case EscapingScheme.Dots:
                string named = name.Length > 0 && char.IsAsciiDigit(name[0]) ? "key_" + name : name;
                return IsLegacy(named, label: true) && !named.Contains("__", StringComparison.Ordinal) && !named.Contains("_dot_", StringComparison.Ordinal)
                    ? named
                    : EscapeAlways(named, scheme, label: true);
            case EscapingScheme.Values:
                return IsLegacy(name, label: true) && !name.StartsWith("U__", StringComparison.Ordinal) ? name : EscapeAlways(name, scheme, label: true);
            default:
                return Escape(name, scheme, label: true);
        }
    }

    private static string EscapeAlways(string name, EscapingScheme scheme, bool label)
    {
        var escaped = new StringBuilder(name.Length + 8);
        if (scheme == EscapingScheme.Values)
        {
            escaped.Append("U__");
        }

        int index = 0;
        while (index < name.Length)
        {
            int first = index;
            bool valid = Rune.DecodeFromUtf16(name.AsSpan(index), out Rune rune, out int consumed) == System.Buffers.OperationStatus.Done;
            index += consumed;
            char c = rune.IsBmp ? (char)rune.Value : '\0';
            bool legacy = valid && IsLegacyChar(c, first == 0, label);
            switch (scheme)
            {
                case EscapingScheme.Dots when c == '_' || c == '.':
                    escaped.Append(c == '_' ? "__" : "_dot_");
                    break;
                case EscapingScheme.Values when c == '_':
                    escaped.Append("__");
                    break;
                case EscapingScheme.Dots or EscapingScheme.Values or EscapingScheme.Underscores when legacy:
                    escaped.Append(c);
                    break;
                case EscapingScheme.Dots:
                    escaped.Append("__");
                    break;
                case EscapingScheme.Values:
                    escaped.Append('_').Append(valid ? rune.Value.ToString("x", CultureInfo.InvariantCulture) : "FFFD").Append('_');
                    break;
                default:
                    escaped.Append('_');
                    break;
            }
        }

        return escaped.ToString();
    }

    private static bool IsLegacy(ReadOnlySpan<char> name, bool label)
    {
        if (name.IsEmpty)
        {
            return false;
        }

        for (int i = 0; i < name.Length; i++)
        {
            if (!IsLegacyChar(name[i], i == 0, label))
            {
                return false;
            }
        }

        return true;
    }

    private static bool IsLegacyChar(char c, bool first, bool label) =>
        char.IsAsciiLetter(c) || c == '_' || (c == ':' && !label) || (!first && char.IsAsciiDigit(c));
}
