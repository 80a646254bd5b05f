using System.Reflection;

namespace ScalableMetrics.Exporter.Tests;

/// <summary>
/// Golden files: the bytes an exposition wrote before a change, embedded in this assembly as
/// <c>Golden.&lt;file name&gt;</c> (Exporter.Tests.csproj), that what it writes now must equal.
/// </summary>
internal static class GoldenFiles
{
    /// <summary>
    /// Asserts that <paramref name="actual"/> is the golden file <paramref name="name"/>, byte for
    /// byte; where not (or where there is no such file), saves it beside the test assembly as
    /// <c>actual-&lt;name&gt;</c>, to compare or to take as the new golden file, and says where the
    /// first difference is.
    /// </summary>
    public static void AssertSame(string name, ReadOnlySpan<byte> actual)
    {
        byte[]? expected = Read(name);
        if (expected is not null && expected.AsSpan().SequenceEqual(actual))
        {
            return;
        }

        string saved = Path.Combine(AppContext.BaseDirectory, "actual-" + name);
        File.WriteAllBytes(saved, actual.ToArray());
        int at = expected is null ? -1 : expected.AsSpan().CommonPrefixLength(actual);
        Assert.Fail(expected is null
            ? $"No golden file {name}; the bytes written ({actual.Length}) are in {saved}."
            : $"{actual.Length} bytes written where the golden {name} has {expected.Length}, the first difference at byte {at}; they are in {saved}.");
    }

    private static byte[]? Read(string name)
    {
        using Stream? stream = Assembly.GetExecutingAssembly().GetManifestResourceStream("Golden." + name);
        if (stream is null)
        {
            return null;
        }

        var copy = new MemoryStream();
        stream.CopyTo(copy);
        return copy.ToArray();
    }
}
