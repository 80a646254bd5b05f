namespace ScalableMetrics.Naming;

/// <summary>
/// OpenTelemetry's rules for instrument names and units (specification, metrics API, "Instrument
/// name syntax" and "Instrument unit"): a name is 1 to 255 characters, starts with a letter and
/// goes on with letters, digits, '_', '.', '-' and '/'; a unit is at most 63 ASCII characters.
/// </summary>
internal static class InstrumentNames
{
    /// <summary>The longest instrument name: 255 characters.</summary>
    public const int MaxNameLength = 255;

    /// <summary>The longest unit: 63 characters.</summary>
    public const int MaxUnitLength = 63;

    /// <summary>Throws unless <paramref name="name"/> and <paramref name="unit"/> follow the rules.</summary>
    /// <exception cref="ArgumentNullException"><paramref name="name"/> is null.</exception>
    /// <exception cref="ArgumentException">The name or the unit breaks the rules.</exception>
    public static void Validate(string name, string? unit)
    {
        ArgumentNullException.ThrowIfNull(name);
        if (!IsValidName(name))
        {
            throw new ArgumentException(
                $"{ExceptionText.Quote(name)} is not a valid instrument name: it must be 1 to {MaxNameLength} characters, start with an ASCII letter, and contain only ASCII letters, digits, '_', '.', '-' and '/'.",
                nameof(name));
        }

        if (unit is not null && (unit.Length > MaxUnitLength || !unit.All(char.IsAscii)))
        {
            throw new ArgumentException($"{ExceptionText.Quote(unit)} is not a valid unit: it must be at most {MaxUnitLength} ASCII characters.", nameof(unit));
        }
    }

    /// <summary>Whether <paramref name="name"/> follows the name syntax.</summary>
    public static bool IsValidName(string name)
    {
        if (name.Length is 0 or > MaxNameLength || !char.IsAsciiLetter(name[0]))
        {
            return false;
        }

        foreach (char c in name)
        {
            if (!char.IsAsciiLetterOrDigit(c) && c is not ('_' or '.' or '-' or '/'))
            {
                return false;
            }
        }

        return true;
    }
}
