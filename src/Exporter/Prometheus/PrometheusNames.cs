using System.Collections;
using System.Globalization;
using System.Text;
using System.Text.Json;

namespace ScalableMetrics.Exporter.Prometheus;

/// <summary>
/// Metric and label names as OpenTelemetry's Prometheus compatibility specification
/// (<c>specification/compatibility/prometheus_and_openmetrics.md</c>) derives them from
/// instrument names, units and attribute keys.
/// </summary>
internal static class PrometheusNames
{
    /// <summary>The label that names the meter (the instrumentation scope) of a sample.</summary>
    public const string ScopeNameLabel = "otel_scope_name";

    /// <summary>The label that carries the meter's version, when it has one.</summary>
    public const string ScopeVersionLabel = "otel_scope_version";

    /// <summary>What every scope label starts with; no tag label may.</summary>
    public const string ScopeLabelPrefix = "otel_scope_";

    /// <summary>
    /// The names a family's samples are stored under: the family name for counters and gauges,
    /// and <c>_sum</c>, <c>_count</c> (and <c>_bucket</c> for histograms) after it.
    /// </summary>
    public static string[] SampleNames(string family, PrometheusType type) => type switch
    {
        PrometheusType.Summary => [family, family + "_sum", family + "_count"],
        PrometheusType.Histogram => [family, family + "_bucket", family + "_sum", family + "_count"],
        _ => [family],
    };

    /// <summary>
    /// A tag value as a label value: strings as they are, <c>true</c>/<c>false</c>, integers in
    /// the invariant culture, floating-point numbers in shortest round-trip form with <c>NaN</c>,
    /// <c>+Inf</c>, <c>-Inf</c>, arrays as JSON arrays (OpenTelemetry's Prometheus compatibility
    /// specification); unescaped.
    /// </summary>
    public static string FormatLabelValue(object? value) => value switch
    {
        null => string.Empty,
        string text => text,
        bool flag => flag ? "true" : "false",
        double number => FormatDouble(number),
        float number => FormatDouble(number),
        IFormattable formattable and not IEnumerable => formattable.ToString(null, CultureInfo.InvariantCulture),
        IEnumerable sequence => JsonSerializer.Serialize(sequence.Cast<object?>()),
        _ => Convert.ToString(value, CultureInfo.InvariantCulture) ?? string.Empty,
    };

    /// <summary>
    /// The metric family name: the sanitized instrument name, then the unit's suffix unless the
    /// name already ends with it, then <c>_total</c> for counters or <c>_ratio</c> for gauges of
    /// unit <c>1</c>, unless already there.
    /// </summary>
    public static string MetricName(string instrumentName, string? unit, PrometheusType type)
    {
        string name = SanitizeMetricName(instrumentName);
        string unitSuffix = UnitSuffix(unit);
        if (unitSuffix.Length > 0)
        {
            name = AppendSuffix(name, unitSuffix);
        }

        return type switch
        {
            PrometheusType.Counter => AppendSuffix(name, "total"),
            PrometheusType.Gauge when unit == "1" => AppendSuffix(name, "ratio"),
            _ => name,
        };
    }

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
    /// A label name matching <c>[a-zA-Z_][a-zA-Z0-9_]*</c>: every other character becomes
    /// <c>_</c>; a name that then starts with a digit gets <c>key_</c> before it, and one that
    /// starts with <c>__</c> (reserved for Prometheus' own labels) gets <c>key</c>.
    /// </summary>
    public static string SanitizeLabelName(string key)
    {
        if (key.Length > 0 && IsValidLabelName(key))
        {
            return key;
        }

        var builder = new StringBuilder(key.Length + 4);
        foreach (char c in key)
        {
            builder.Append(char.IsAsciiLetterOrDigit(c) ? c : '_');
        }

        if (builder.Length == 0 || char.IsAsciiDigit(builder[0]))
        {
            builder.Insert(0, "key_");
        }
        else if (builder.Length >= 2 && builder[0] == '_' && builder[1] == '_')
        {
            builder.Insert(0, "key");
        }

        return builder.ToString();
    }

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

    private static string FormatDouble(double value) =>
        double.IsFinite(value) ? value.ToString("R", CultureInfo.InvariantCulture)
        : double.IsNaN(value) ? "NaN"
        : value > 0 ? "+Inf" : "-Inf";

    private static bool IsValidLabelName(string key)
    {
        if (char.IsAsciiDigit(key[0]) || key.StartsWith("__", StringComparison.Ordinal))
        {
            return false;
        }

        foreach (char c in key)
        {
            if (!char.IsAsciiLetterOrDigit(c) && c != '_')
            {
                return false;
            }
        }

        return true;
    }

    private static string AppendSuffix(string name, string suffix) =>
        name.EndsWith("_" + suffix, StringComparison.Ordinal) || name == suffix ? name : name.TrimEnd('_') + "_" + suffix;

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
