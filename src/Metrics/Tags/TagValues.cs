namespace ScalableMetrics.Tags;

/// <summary>
/// OpenTelemetry's attribute value rules, as applied to a tag: a value is a string, a bool, a
/// 64-bit integer or a double. Integral types widen to <see cref="long"/> and <see cref="float"/>
/// to <see cref="double"/>, so that <c>200</c> and <c>200L</c> name the same series; a negative
/// zero is stored as <c>0.0</c> (see <see cref="Normalize"/>).
/// </summary>
internal static class TagValues
{
    /// <summary>
    /// The value as a tag set stores it: a string, bool, <see cref="long"/> or <see cref="double"/>,
    /// integral types widened to <see cref="long"/> and <see cref="float"/> to <see cref="double"/>,
    /// and <c>-0.0</c> as <c>0.0</c>. The two are equal as doubles, so the lookup by value finds
    /// one for the other; stored as <c>0.0</c>, a negative zero prints <c>0</c>, as <c>0</c> and
    /// <c>0L</c> do, so that the identity (the printed value) agrees with the lookup, and every
    /// exporter (OTLP's attribute too) writes <c>0.0</c>.
    /// </summary>
    /// <param name="key">The tag's key, for the message of a refusal.</param>
    /// <param name="value">The value as given.</param>
    /// <exception cref="ArgumentException">The value is null or of an unsupported type; the message names the key.</exception>
    public static object Normalize(string key, object? value) => value switch
    {
        // -0.0 == 0.0: a zero, then its sign.
        double v when v == 0 && double.IsNegative(v) => 0.0,
        string or bool or long or double => value,
        float v => v == 0 ? 0.0 : (double)v,

        // The integral types as the lookup widens them (one list of them, TryWidenToInt64's).
        _ when TryWidenToInt64(value, out long widened) => widened,
        null => throw new ArgumentException($"Tag {ExceptionText.Quote(key)} has a null value; tag values must be non-null.", "tags"),
        _ => throw new ArgumentException(
            $"Tag {ExceptionText.Quote(key)} has a value of type {value.GetType()}; tag values must be a string, bool, integral number up to Int64.MaxValue, float or double.", "tags"),
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

    /// <summary>
    /// The hash of a value, equal for a value and its normalized form, and seeded per process for
    /// every type: strings hash with their randomized hash, and every other value goes through
    /// <see cref="HashCode"/>, whose seed is random per process, as its full 64 bits (not
    /// <see cref="long.GetHashCode"/>, whose XOR of the two halves sends every <c>(k &lt;&lt; 32) | k</c>
    /// to 0), so that a caller cannot choose values that collide.
    /// </summary>
    public static int Hash(object? value) => value switch
    {
        string s => s.GetHashCode(),
        double d => HashDouble(d),
        float f => HashDouble(f),
        bool b => HashCode.Combine(b),
        null => 0,
        _ => TryWidenToInt64(value, out long l) ? HashInt64(l) : value.GetHashCode(),
    };

    /// <summary>Checks that <paramref name="value"/> is a supported, non-null tag value, without allocating.</summary>
    /// <exception cref="ArgumentException">The value is null or of an unsupported type; the message names the key.</exception>
    public static void Validate(string key, object? value)
    {
        if (value is string or bool or double or float || TryWidenToInt64(value, out _))
        {
            return;
        }

        // Throws the message that fits.
        Normalize(key, value);
    }

    private static int HashInt64(long value) => HashCode.Combine((int)value, (int)(value >> 32));

    // Equal doubles hash alike: 0.0 and -0.0 are equal, as are all NaNs (double.Equals).
    private static int HashDouble(double value) =>
        HashInt64(value == 0 ? 0 : double.IsNaN(value) ? BitConverter.DoubleToInt64Bits(double.NaN) : BitConverter.DoubleToInt64Bits(value));

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
            case nint v: result = v; return true;
            case nuint v when v <= long.MaxValue: result = (long)v; return true;
            default: result = 0; return false;
        }
    }
}
