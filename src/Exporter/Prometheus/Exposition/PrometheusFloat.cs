using System.Globalization;

namespace ScalableMetrics.Exporter.Prometheus.Exposition;

/// <summary>
/// Formats a <see cref="double"/> as Prometheus' own clients do (prometheus/common
/// <c>expfmt</c> <c>writeFloat</c>: Go's <c>strconv.AppendFloat(f, 'g', -1, 64)</c>): the
/// shortest digits that round-trip, plain notation for decimal exponents from -4 to 5
/// (<c>0.0001</c>, <c>100000</c>), exponent notation otherwise (<c>1e-05</c>, <c>1e+06</c>,
/// <c>1.5e+20</c>), <c>NaN</c>, <c>+Inf</c>, <c>-Inf</c>, and <c>0</c> for either zero (<c>writeFloat</c>
/// tests <c>f == 0</c> before it formats, which -0.0 passes).
/// </summary>
/// <remarks>
/// A sample value is parsed as a number, so any spelling would do there; a bucket's <c>le</c> is a
/// label, a string to Prometheus 2.x: spelled otherwise than by the Go clients (.NET writes
/// <c>1E-05</c> and <c>1000000</c>), the bucket would be another series than theirs, and
/// <c>sum by (le)</c> across services would not add them. Thread-safe (no state).
/// </remarks>
internal static class PrometheusFloat
{
    /// <summary>Enough for any double: sign, 17 digits, point, <c>e</c>, exponent sign and 3 digits, with room to spare.</summary>
    public const int MaxLength = 32;

    // Go's shortest 'g' switches to exponent notation at decimal exponent 6 and below -4.
    private const int MaxPlainExponent = 5;
    private const int MinPlainExponent = -4;

    // The magnitudes Go writes plainly: decimal exponents MinPlainExponent to MaxPlainExponent.
    private const double PlainLow = 1e-4;
    private const double PlainHigh = 1e6;

    /// <summary>Writes <paramref name="value"/> into <paramref name="destination"/> (at least <see cref="MaxLength"/> bytes).</summary>
    /// <returns>How many bytes were written.</returns>
    public static int Format(double value, Span<byte> destination)
    {
        // writeFloat tests f == 0 first, which -0.0 passes too: Go's clients write both zeros "0",
        // so a bucket whose le is -0.0 is the same series as theirs (and as its own, whichever zero
        // created the histogram, since the registry takes them as the same boundaries).
        if (value == 0)
        {
            destination[0] = (byte)'0';
            return 1;
        }

        if (!double.IsFinite(value))
        {
            ReadOnlySpan<byte> text = double.IsNaN(value) ? "NaN"u8 : value > 0 ? "+Inf"u8 : "-Inf"u8;
            text.CopyTo(destination);
            return text.Length;
        }

        // Where Go writes plain notation (a decimal exponent from -4 to 5: 1e-4 <= |value| < 1e6),
        // .NET's shortest round-trip text is the same bytes: the same digits, plain as well (it
        // turns to exponent notation only below 1e-5 and from 1e15). Neither side of the test can
        // fall on the other's side after rounding: the shortest digits name the double exactly.
        double magnitude = Math.Abs(value);
        if (magnitude is >= PlainLow and < PlainHigh)
        {
            value.TryFormat(destination, out int plain, default, CultureInfo.InvariantCulture);
            return plain;
        }

        // .NET's "R" is the shortest round-trip digits too (since .NET Core 3.0); only the layout differs.
        Span<byte> shortest = stackalloc byte[MaxLength];
        value.TryFormat(shortest, out int length, "R", CultureInfo.InvariantCulture);
        Span<byte> digits = stackalloc byte[MaxLength];
        int digitCount = Decompose(shortest[..length], digits, out bool negative, out int pointPosition);

        int written = 0;
        if (negative)
        {
            destination[written++] = (byte)'-';
        }

        if (digitCount == 0)
        {
            destination[written++] = (byte)'0';
            return written;
        }

        int exponent = pointPosition - 1;
        return exponent is < MinPlainExponent or > MaxPlainExponent
            ? written + WriteExponent(digits[..digitCount], exponent, destination[written..])
            : written + WritePlain(digits[..digitCount], pointPosition, destination[written..]);
    }

    /// <summary>
    /// Reads .NET's round-trip text (<c>-123.45</c>, <c>1.2345E-05</c>, <c>1E+15</c>) into its
    /// significant digits, without leading or trailing zeros, and the position of the decimal
    /// point relative to the first of them (the value is <c>0.digits × 10^pointPosition</c>).
    /// </summary>
    private static int Decompose(ReadOnlySpan<byte> text, Span<byte> digits, out bool negative, out int pointPosition)
    {
        negative = text[0] == '-';
        int i = negative ? 1 : 0;
        int count = 0;
        int integerDigits = -1;
        for (; i < text.Length && text[i] != 'E'; i++)
        {
            if (text[i] == '.')
            {
                integerDigits = count;
            }
            else
            {
                digits[count++] = text[i];
            }
        }

        pointPosition = (integerDigits < 0 ? count : integerDigits)
            + (i < text.Length ? int.Parse(text[(i + 1)..], NumberStyles.AllowLeadingSign, CultureInfo.InvariantCulture) : 0);

        int leadingZeros = 0;
        while (leadingZeros < count && digits[leadingZeros] == '0')
        {
            leadingZeros++;
        }

        digits[leadingZeros..count].CopyTo(digits);
        count -= leadingZeros;
        pointPosition -= leadingZeros;
        while (count > 0 && digits[count - 1] == '0')
        {
            count--;
        }

        return count;
    }

    // d.ddde±XX: Go's fmtE, at least two exponent digits.
    private static int WriteExponent(ReadOnlySpan<byte> digits, int exponent, Span<byte> destination)
    {
        int written = 0;
        destination[written++] = digits[0];
        if (digits.Length > 1)
        {
            destination[written++] = (byte)'.';
            digits[1..].CopyTo(destination[written..]);
            written += digits.Length - 1;
        }

        destination[written++] = (byte)'e';
        destination[written++] = exponent < 0 ? (byte)'-' : (byte)'+';
        int magnitude = Math.Abs(exponent);
        if (magnitude < 10)
        {
            destination[written++] = (byte)'0';
        }

        magnitude.TryFormat(destination[written..], out int exponentLength, default, CultureInfo.InvariantCulture);
        return written + exponentLength;
    }

    // ddd.ddd, 0.000ddd or ddd000: Go's fmtF with the fraction's digits exactly those needed.
    private static int WritePlain(ReadOnlySpan<byte> digits, int pointPosition, Span<byte> destination)
    {
        int written = 0;
        if (pointPosition <= 0)
        {
            destination[written++] = (byte)'0';
        }
        else
        {
            for (int i = 0; i < pointPosition; i++)
            {
                destination[written++] = i < digits.Length ? digits[i] : (byte)'0';
            }
        }

        int fractionDigits = digits.Length - pointPosition;
        if (fractionDigits > 0)
        {
            destination[written++] = (byte)'.';
            for (int i = 0; i < fractionDigits; i++)
            {
                int digit = pointPosition + i;
                destination[written++] = digit >= 0 ? digits[digit] : (byte)'0';
            }
        }

        return written;
    }
}
