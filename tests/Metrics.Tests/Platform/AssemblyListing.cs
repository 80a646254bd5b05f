using System.Globalization;
using System.Text.RegularExpressions;

namespace ScalableMetrics.Tests.Platform;

/// <summary>Parses listings in objdump's form, <c>offset: bytes instruction</c>, ignoring comments (<c>;</c> ours, <c>#</c> objdump's).</summary>
internal static partial class AssemblyListing
{
    public static List<(int Offset, string Bytes, string Instruction)> Parse(string listing)
    {
        var lines = new List<(int, string, string)>();
        foreach (string line in listing.Split('\n'))
        {
            Match match = LineRegex().Match(line);
            if (match.Success)
            {
                string instruction = match.Groups["instruction"].Value.Split(';', '#')[0];
                lines.Add((
                    int.Parse(match.Groups["offset"].Value, NumberStyles.HexNumber, CultureInfo.InvariantCulture),
                    match.Groups["bytes"].Value.Trim(),
                    WhitespaceRegex().Replace(instruction.Trim(), " ")));
            }
        }

        return lines;
    }

    [GeneratedRegex(@"^\s*(?<offset>[0-9a-f]+):\s+(?<bytes>(?:[0-9a-f]{2} )*[0-9a-f]{2})\s+(?<instruction>\S.*)$")]
    private static partial Regex LineRegex();

    [GeneratedRegex(@"\s+")]
    private static partial Regex WhitespaceRegex();
}
