using System.Globalization;
using System.Text;

namespace ScalableMetrics.Naming;

/// <summary>
/// The one place that says how an instrument and a series are named once exported: metric and
/// label names as OpenTelemetry's Prometheus compatibility specification
/// (<c>specification/compatibility/prometheus_and_openmetrics.md</c>) derives them from instrument
/// names, units and tag keys, and the printed form of a tag value. The registry refuses what
/// would meet after these rules; the exporter writes exactly what they return.
/// </summary>
internal static class ExportedNames
{
    /// <summary>What the table's overflow series is tagged with, and no caller's tag may be named like.</summary>
    public const string OverflowTagKey = "otel.metric.overflow";

    /// <summary>The label that names the meter (the instrumentation scope) of every sample.</summary>
    public const string ScopeNameLabel = "otel_scope_name";

    /// <summary>The label that carries the meter's version, where it has one.</summary>
    public const string ScopeVersionLabel = "otel_scope_version";

    /// <summary>The label that carries the meter's schema URL (<c>Meter.TelemetrySchemaUrl</c>), where it has one.</summary>
    public const string ScopeSchemaUrlLabel = "otel_scope_schema_url";

    /// <summary>What every scope label starts with; no tag's label may.</summary>
    public const string ScopeLabelPrefix = "otel_scope_";

    /// <summary>The family that carries the resource's attributes as the labels of its one sample: <c>target_info</c>.</summary>
    public const string TargetInfoName = "target_info";

    /// <summary>The OpenMetrics family of <see cref="TargetInfoName"/>: an info family is named without its sample's <c>_info</c>.</summary>
    public const string TargetInfoFamilyName = "target";

    /// <summary>The exemplar label of the trace of the measurement kept, as OpenTelemetry's Prometheus compatibility specification names it; its value lowercase hex (32 digits, W3C Trace Context).</summary>
    public const string ExemplarTraceIdLabel = "trace_id";

    /// <summary>The exemplar label of the span of the measurement kept; its value lowercase hex (16 digits).</summary>
    public const string ExemplarSpanIdLabel = "span_id";

    // Label names the exposition writes beside a series' tags: a histogram bucket's and a summary quantile's.
    private static readonly string[] s_sampleLabelNames = ["le", "quantile"];

    // Label names the exposition writes itself (histogram and summary labels, the overflow series'
    // label); the scope labels are told by their prefix.
    private static readonly string[] s_reservedLabelNames = [.. s_sampleLabelNames, "otel_metric_overflow"];

    /// <summary>
    /// The metric family name: the sanitized instrument name, then the unit's suffix unless the
    /// name already ends with it (or is it), then <c>_total</c> for counters unless the name ends
    /// with <c>_total</c> (<see cref="AppendTotal"/>: a counter named <c>total</c> is <c>total_total</c>),
    /// or <c>_ratio</c> for gauges of unit <c>1</c>, unless already there.
    /// </summary>
    public static string MetricName(string instrumentName, string? unit, ExportedKind kind)
    {
        string name = SanitizeMetricName(instrumentName);
        string unitSuffix = UnitSuffix(unit);
        if (unitSuffix.Length > 0)
        {
            name = AppendSuffix(name, unitSuffix);
        }

        return kind switch
        {
            ExportedKind.Counter => AppendTotal(name),
            ExportedKind.Gauge when unit == "1" => AppendSuffix(name, "ratio"),
            _ => name,
        };
    }

    /// <summary>
    /// The metric family name under a UTF-8 translation: the instrument name as it is, then, with
    /// <paramref name="withSuffixes"/> (OpenTelemetry's <c>NoUTF8EscapingWithSuffixes</c>), the
    /// unit's suffix and <c>_ratio</c> as <see cref="MetricName"/> appends them; and <c>_total</c>
    /// for counters either way (<see cref="AppendTotal"/>), as OpenMetrics requires of a counter's sample, so that a counter is
    /// stored under one name whichever format the scraper negotiates (<c>NoTranslation</c> otherwise
    /// passes the name through).
    /// </summary>
    public static string Utf8MetricName(string instrumentName, string? unit, ExportedKind kind, bool withSuffixes)
    {
        string name = instrumentName;
        if (withSuffixes && UnitSuffix(unit) is { Length: > 0 } unitSuffix)
        {
            name = AppendSuffix(name, unitSuffix);
        }

        return kind switch
        {
            ExportedKind.Counter => AppendTotal(name),
            ExportedKind.Gauge when withSuffixes && unit == "1" => AppendSuffix(name, "ratio"),
            _ => name,
        };
    }

    /// <summary>
    /// The label a tag is written under where the scraper allows UTF-8 names: its key as it is, but
    /// an empty key as <c>key_</c>, one starting with <c>_</c> (OpenMetrics reserves label names
    /// beginning with an underscore; <c>__</c> ones are Prometheus' own) with <c>key</c> before it,
    /// and one that would pass for a label the exposition writes (<c>otel_scope_*</c>, <c>le</c>,
    /// <c>quantile</c>) with <c>tag_</c> before it, as <see cref="TagLabelName"/> treats their
    /// sanitized forms.
    /// </summary>
    public static string Utf8TagLabelName(string key) =>
        key.Length == 0 ? "key_"
        : key[0] == '_' ? "key" + key
        : PassesForWrittenLabel(key) ? "tag_" + key
        : key;

    /// <summary>
    /// A metric name matching <c>[a-zA-Z_:][a-zA-Z0-9_:]*</c>: every other character becomes
    /// <c>_</c>, runs of <c>_</c> (given or made) become one, and a leading digit gets a <c>_</c> before it.
    /// </summary>
    public static string SanitizeMetricName(string name)
    {
        var builder = new StringBuilder(name.Length + 1);
        if (name.Length == 0 || char.IsAsciiDigit(name[0]))
        {
            builder.Append('_');
        }

        foreach (char c in name)
        {
            if (char.IsAsciiLetterOrDigit(c) || c == ':')
            {
                builder.Append(c);
            }
            else if (builder.Length == 0 || builder[^1] != '_')
            {
                builder.Append('_');
            }
        }

        return builder.Equals(name.AsSpan()) ? name : builder.ToString();
    }

    /// <summary>
    /// A label name matching <c>[a-zA-Z][a-zA-Z0-9_]*</c>: every other character (each UTF-16 unit)
    /// becomes <c>_</c>; a name that then starts with a digit (or is empty) gets <c>key_</c> before
    /// it, and one that starts with <c>_</c> gets <c>key</c> (<c>_internal</c>, <c>.net</c> and
    /// <c>é</c> are <c>key_internal</c>, <c>key_net</c> and <c>key_</c>): OpenMetrics reserves label
    /// names beginning with an underscore, and Prometheus keeps <c>__</c> ones for its own.
    /// opentelemetry-collector-contrib's <c>NormalizeLabel</c> prefixes <c>key</c> alike, but for
    /// <c>__</c>, which it leaves as it is. <see cref="LabelNamesEqual"/> compares by this same rule.
    /// </summary>
    public static string SanitizeLabelName(string key)
    {
        string prefix = SanitizedPrefix(key);
        if (prefix.Length == 0 && IsLabelBody(key))
        {
            return key;
        }

        var builder = new StringBuilder(prefix, prefix.Length + key.Length);
        foreach (char c in key)
        {
            builder.Append(LabelChar(c));
        }

        return builder.ToString();
    }

    /// <summary>
    /// The label a tag of another meter's metric is written under: its key sanitized
    /// (<see cref="SanitizeLabelName"/>), and one that would then pass for a label the exposition
    /// writes itself, a scope label (<c>otel_scope_*</c>) or a histogram bucket's <c>le</c> or a
    /// summary's <c>quantile</c>, with <c>tag_</c> before it (<c>tag_otel_scope_team</c>,
    /// <c>tag_le</c>), so that no tag can pass for the scope or be written beside the sample's own
    /// label of that name. (A registry refuses such keys when they are recorded:
    /// <see cref="IsReservedLabel"/>; another meter's tags come to the exporter already recorded.)
    /// <c>otel_metric_overflow</c> is written as it is: it is how OpenTelemetry tags its own overflow point.
    /// </summary>
    public static string TagLabelName(string key)
    {
        string name = SanitizeLabelName(key);
        return PassesForWrittenLabel(name) ? "tag_" + name : name;
    }

    /// <summary>
    /// Whether a tag key is refused as reserved: one that starts with <c>__</c>, the prefix of
    /// Prometheus' own labels (<c>__name__</c>), written as it is; or one whose label
    /// (<see cref="SanitizeLabelName"/>) is a label the exposition writes itself, so that a caller's
    /// tag could spoof it: <c>le</c>, <c>quantile</c>, <c>otel_metric_overflow</c>,
    /// <c>otel_scope_*</c> (the meter's labels). A key that only sanitizes to a name starting with
    /// <c>_</c> (<c>.-job</c>, <c>ключ</c>) is not: its label has <c>key</c> before it
    /// (<c>key__job</c>, <c>key____</c>). Allocates nothing.
    /// </summary>
    public static bool IsReservedLabel(string key)
    {
        if (key.StartsWith("__", StringComparison.Ordinal))
        {
            return true;
        }

        if (SanitizedPrefix(key).Length > 0)
        {
            // Sanitized with a 'key' or 'key_' prefix, which no reserved name has.
            return false;
        }

        if (SanitizedStartsWith(key, ScopeLabelPrefix))
        {
            return true;
        }

        foreach (string reserved in s_reservedLabelNames)
        {
            if (key.Length == reserved.Length && SanitizedStartsWith(key, reserved))
            {
                return true;
            }
        }

        return false;
    }

    /// <summary>
    /// Whether two tag keys sanitize to the same label name (<see cref="SanitizeLabelName"/>: a prefix,
    /// then each character as a label character), so that <c>_internal</c> and <c>key_internal</c>
    /// meet as <c>http.route</c> and <c>http_route</c> do. Allocates nothing.
    /// </summary>
    public static bool LabelNamesEqual(string a, string b)
    {
        // Compare the two sanitized forms character by character without building them.
        string prefixA = SanitizedPrefix(a);
        string prefixB = SanitizedPrefix(b);
        if (prefixA.Length + a.Length != prefixB.Length + b.Length)
        {
            return false;
        }

        for (int i = 0; i < prefixA.Length + a.Length; i++)
        {
            if (SanitizedAt(a, prefixA, i) != SanitizedAt(b, prefixB, i))
            {
                return false;
            }
        }

        return true;
    }

    /// <summary>
    /// The printed form of a tag value, as the exposition writes it: a string as it is (a lone
    /// surrogate as U+FFFD, which is what UTF-8 encoding writes for it); an integer in the
    /// invariant culture; a double as its shortest round-trip form (<c>"R"</c>), or <c>NaN</c>,
    /// <c>+Inf</c>, <c>-Inf</c>; a bool as <c>true</c> or <c>false</c>; an array (OpenTelemetry
    /// attributes of other meters may be arrays) as a JSON array, as OpenTelemetry's Prometheus
    /// compatibility specification asks (<see cref="JsonLabelValue.Format"/>).
    /// </summary>
    public static string FormatLabelValue(object? value) => value switch
    {
        null => string.Empty,
        string text => ReplaceLoneSurrogates(text),
        bool flag => flag ? "true" : "false",
        double number => FormatDouble(number),
        float number => FormatDouble(number),
        long number => number.ToString(CultureInfo.InvariantCulture),
        // The JSON writer escapes every character outside ASCII, lone surrogates as \uFFFD.
        System.Collections.IEnumerable sequence => JsonLabelValue.Format(sequence),
        _ => ReplaceLoneSurrogates(Convert.ToString(value, CultureInfo.InvariantCulture) ?? string.Empty),
    };

    /// <summary>
    /// The name suffix for a UCUM unit: annotations in braces dropped (<c>{request}</c> → none),
    /// <c>a/b</c> → <c>a_per_b</c> (<c>{packet}/s</c> → <c>per_second</c>), common abbreviations spelled out (<c>s</c> → <c>seconds</c>,
    /// <c>By</c> → <c>bytes</c>), <c>1</c> → none; empty for no unit.
    /// </summary>
    public static string UnitSuffix(string? unit)
    {
        if (string.IsNullOrEmpty(unit))
        {
            return string.Empty;
        }

        string withoutAnnotations = RemoveAnnotations(unit);
        int slash = withoutAnnotations.IndexOf('/', StringComparison.Ordinal);
        string mapped;
        if (slash >= 0 && slash < withoutAnnotations.Length - 1)
        {
            string numerator = MapUnit(withoutAnnotations[..slash]);
            string perUnit = "per_" + MapPerUnit(withoutAnnotations[(slash + 1)..]);
            mapped = numerator.Length == 0 ? perUnit : numerator + "_" + perUnit;
        }
        else
        {
            mapped = MapUnit(withoutAnnotations);
        }

        return mapped.Length == 0 ? mapped : SanitizeMetricName(mapped).Trim('_');
    }

    /// <summary>
    /// <paramref name="name"/> followed by <c>_</c> and the unit suffix <paramref name="suffix"/>
    /// (<c>seconds</c>, <c>ratio</c>), unless it already ends so or is the suffix itself: the
    /// specification adds a unit's suffix "unless the metric name already ends with the unit", and
    /// a gauge named <c>seconds</c> of unit <c>s</c> does. Not for <c>_total</c> (<see cref="AppendTotal"/>).
    /// </summary>
    public static string AppendSuffix(string name, string suffix) =>
        name.EndsWith("_" + suffix, StringComparison.Ordinal) || name == suffix ? name : name.TrimEnd('_') + "_" + suffix;

    /// <summary>
    /// <paramref name="name"/> followed by <c>_total</c>, unless it already ends with <c>_total</c>.
    /// Unlike a unit's suffix (<see cref="AppendSuffix"/>), a name that is <c>total</c> itself gets it
    /// too: the specification ("Sums") adds <c>_total</c> to a monotonic sum's name that "does not end
    /// in a suffix of <c>_total</c>", and OpenMetrics writes a counter's value as the sample named
    /// after its family with <c>_total</c>, so the counter <c>total</c> is the family <c>total</c>
    /// with the sample <c>total_total</c>, not a family <c>total</c> with a sample <c>total</c>.
    /// </summary>
    private static string AppendTotal(string name) =>
        name.EndsWith("_total", StringComparison.Ordinal) ? name : name.TrimEnd('_') + "_total";

    private static string FormatDouble(double number) =>
        double.IsFinite(number) ? number.ToString("R", CultureInfo.InvariantCulture)
        : double.IsNaN(number) ? "NaN"
        : number > 0 ? "+Inf" : "-Inf";

    private static string ReplaceLoneSurrogates(string text)
    {
        for (int i = 0; i < text.Length; i++)
        {
            if (char.IsSurrogate(text[i]) && !IsPairAt(text, i))
            {
                return ReplaceLoneSurrogatesFrom(text, i);
            }

            if (char.IsHighSurrogate(text[i]))
            {
                i++;
            }
        }

        return text;
    }

    private static string ReplaceLoneSurrogatesFrom(string text, int first)
    {
        var builder = new StringBuilder(text.Length);
        builder.Append(text, 0, first);
        for (int i = first; i < text.Length; i++)
        {
            if (IsPairAt(text, i))
            {
                builder.Append(text, i, 2);
                i++;
            }
            else
            {
                builder.Append(char.IsSurrogate(text[i]) ? '\uFFFD' : text[i]);
            }
        }

        return builder.ToString();
    }

    private static bool IsPairAt(string text, int i) =>
        char.IsHighSurrogate(text[i]) && i + 1 < text.Length && char.IsLowSurrogate(text[i + 1]);

    // Whether a label name (a sanitized key, or a key as it is under UTF-8 names) is one the
    // exposition writes beside a series' tags: a scope label, or a bucket's or quantile's.
    private static bool PassesForWrittenLabel(string name) =>
        name.StartsWith(ScopeLabelPrefix, StringComparison.Ordinal) || Array.IndexOf(s_sampleLabelNames, name) >= 0;

    private static char LabelChar(char c) => char.IsAsciiLetterOrDigit(c) ? c : '_';

    private static char SanitizedAt(string key, string prefix, int i) =>
        i < prefix.Length ? prefix[i] : LabelChar(key[i - prefix.Length]);

    // What SanitizeLabelName writes before a key's characters: "key_" before an empty key or one
    // starting with a digit, "key" before one whose first character is written as '_' (OpenMetrics
    // reserves label names beginning with an underscore), else nothing.
    private static string SanitizedPrefix(string key) =>
        key.Length == 0 || char.IsAsciiDigit(key[0]) ? "key_"
        : LabelChar(key[0]) == '_' ? "key"
        : string.Empty;

    private static bool SanitizedStartsWith(string key, string prefix)
    {
        if (key.Length < prefix.Length)
        {
            return false;
        }

        for (int i = 0; i < prefix.Length; i++)
        {
            if (LabelChar(key[i]) != prefix[i])
            {
                return false;
            }
        }

        return true;
    }

    // Whether every character of key is a label character, written as it is.
    private static bool IsLabelBody(string key)
    {
        foreach (char c in key)
        {
            if (!char.IsAsciiLetterOrDigit(c) && c != '_')
            {
                return false;
            }
        }

        return true;
    }

    private static string RemoveAnnotations(string unit)
    {
        if (!unit.Contains('{', StringComparison.Ordinal))
        {
            return unit;
        }

        var builder = new StringBuilder(unit.Length);
        int depth = 0;
        foreach (char c in unit)
        {
            if (c == '{')
            {
                depth++;
            }
            else if (c == '}' && depth > 0)
            {
                depth--;
            }
            else if (depth == 0)
            {
                builder.Append(c);
            }
        }

        return builder.ToString();
    }

    // The specification's table of units (kilobytes is kBy there, UCUM's k), and KBy, as OpenTelemetry's collector spells it.
    private static string MapUnit(string unit) => unit switch
    {
        "d" => "days",
        "h" => "hours",
        "min" => "minutes",
        "s" => "seconds",
        "ms" => "milliseconds",
        "us" => "microseconds",
        "ns" => "nanoseconds",
        "By" => "bytes",
        "KiBy" => "kibibytes",
        "MiBy" => "mebibytes",
        "GiBy" => "gibibytes",
        "TiBy" => "tebibytes",
        "kBy" => "kilobytes",
        "KBy" => "kilobytes",
        "MBy" => "megabytes",
        "GBy" => "gigabytes",
        "TBy" => "terabytes",
        "m" => "meters",
        "V" => "volts",
        "A" => "amperes",
        "J" => "joules",
        "W" => "watts",
        "g" => "grams",
        "Cel" => "celsius",
        "Hz" => "hertz",
        "1" => string.Empty,
        "%" => "percent",
        _ => unit,
    };

    private static string MapPerUnit(string unit) => unit switch
    {
        "s" => "second",
        "m" => "minute",
        "h" => "hour",
        "d" => "day",
        "w" => "week",
        "mo" => "month",
        "y" => "year",
        _ => unit,
    };
}
