using System.Globalization;
using System.Reflection;
using System.Xml.Linq;
using System.Text.RegularExpressions;

namespace ScalableMetrics.Tests.Platform;

/// <summary>Parses listings in objdump's form, <c>offset: bytes instruction</c>, ignoring comments (<c>;</c> ours, <c>#</c> objdump's).</summary>
internal static partial class AssemblyListing
{
    /// <summary>The <c>&lt;code&gt;</c> block of a member's doc comment (<paramref name="memberId"/>, e.g. <c>T:Namespace.Type</c>), from the XML documentation file the build writes beside <paramref name="assembly"/>.</summary>
    public static string Documented(Assembly assembly, string memberId)
    {
        string xmlPath = Path.ChangeExtension(assembly.Location, ".xml");
        Assert.True(File.Exists(xmlPath), $"the documentation file {xmlPath} is missing");
        XElement member = XDocument.Load(xmlPath).Descendants("member")
            .Single(element => (string?)element.Attribute("name") == memberId);
        return member.Descendants("code").Single().Value;
    }

    /// <summary>Asserts that objdump's disassembly of <paramref name="code"/> is <paramref name="listing"/>, line by line.</summary>
    public static void AssertDisassemblesTo(string listing, ReadOnlySpan<byte> code)
    {
        List<(int Offset, string Bytes, string Instruction)> documented = Parse(listing);
        List<(int Offset, string Bytes, string Instruction)> disassembled = Objdump.Disassemble(code);
        Assert.True(documented.Count > 10, $"the doc comment's listing was not found ({documented.Count} lines parsed)");
        Assert.Equal(disassembled.Count, documented.Count);
        for (int i = 0; i < documented.Count; i++)
        {
            Assert.Equal(disassembled[i], documented[i]);
        }
    }

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
