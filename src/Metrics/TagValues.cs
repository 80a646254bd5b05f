namespace ScalableMetrics;

/// <summary>
/// OpenTelemetry's attribute value rules, as applied to a tag: a value is a string, a bool, a
/// 64-bit integer or a double. Integral types widen to <see cref="long"/> and <see cref="float"/>
/// to <see cref="double"/>, so that <c>200</c> and <c>200L</c> name the same series.
/// </summary>
internal static class TagValues
{
    public static object Normalize(string key, object? value) => value switch
    {
        string or bool or long or double => value,
        int v => (long)v,
        short v => (long)v,
        sbyte v => (long)v,
        byte v => (long)v,
        ushort v => (long)v,
        uint v => (long)v,
        ulong v when v <= long.MaxValue => (long)v,
        float v => (double)v,
        null => throw new ArgumentException($"Tag '{key}' has a null value; tag values must be non-null.", "tags"),
        _ => throw new ArgumentException(
            $"Tag '{key}' has a value of type {value.GetType()}; tag values must be a string, bool, integral number up to Int64.MaxValue, or floating-point number.", "tags"),
    };

    /// <summary>Whether <paramref name="incoming"/>, not yet normalized, equals the normalized <paramref name="stored"/>.</summary>
    public static bool EqualsNormalized(object? stored, object? incoming)
    {
        if (ReferenceEquals(stored, incoming))
        {
            return true;
        }

        return stored switch
        {
            string s => incoming is string t && string.Equals(s, t, StringComparison.Ordinal),
            long l => TryWidenToInt64(incoming, out long v) && v == l,
            double d => incoming switch { double x => x.Equals(d), float x => ((double)x).Equals(d), _ => false },
            bool b => incoming is bool x && x == b,
            _ => false,
        };
    }

    /// <summary>The hash of a value, equal for a value and its normalized form.</summary>
    public static int Hash(object? value) => value switch
    {
        string s => s.GetHashCode(),
        double d => d.GetHashCode(),
        float f => ((double)f).GetHashCode(),
        bool b => b.GetHashCode(),
        null => 0,
        _ => TryWidenToInt64(value, out long l) ? l.GetHashCode() : value.GetHashCode(),
    };

    private static bool TryWidenToInt64(object? value, out long result)
    {
        switch (value)
        {
            case long v: result = v; return true;
            case int v: result = v; return true;
            case short v: result = v; return true;
            case sbyte v: result = v; return true;
            case byte v: result = v; return true;
            case ushort v: result = v; return true;
            case uint v: result = v; return true;
            case ulong v when v <= long.MaxValue: result = (long)v; return true;
            default: result = 0; return false;
        }
    }
}
