using ScalableMetrics.Naming;

namespace ScalableMetrics.Tests.Naming;

/// <summary>
/// The printed form of an array tag value (OpenTelemetry attributes of other meters may be
/// arrays): a JSON array, as OpenTelemetry's Prometheus compatibility specification asks. The
/// expected strings are what <c>JsonSerializer.Serialize</c> wrote before the arrays were
/// written with <c>Utf8JsonWriter</c> (so that the library has no reflection-based
/// serialization and trims): the same bytes, escapes included.
/// </summary>
public sealed class ArrayLabelValueTests
{
    public static TheoryData<string, object, string> Arrays => new()
    {
        { "empty", Array.Empty<string>(), "[]" },
        { "strings", new[] { "a", "b c", string.Empty }, "[\"a\",\"b c\",\"\"]" },
        { "escapes", new[] { "quote\"", "back\\slash", "new\nline\ttab\r", "\u0001\u001f", "/solidus" }, "[\"quote\\u0022\",\"back\\\\slash\",\"new\\nline\\ttab\\r\",\"\\u0001\\u001F\",\"/solidus\"]" },
        { "html-sensitive", new[] { "<a href='x'>&+`</a>" }, "[\"\\u003Ca href=\\u0027x\\u0027\\u003E\\u0026\\u002B\\u0060\\u003C/a\\u003E\"]" },
        { "non-ascii", new[] { "ünï", "日本", "😀", "\u2028\u2029", "\u007f\u0080" }, "[\"\\u00FCn\\u00EF\",\"\\u65E5\\u672C\",\"\\uD83D\\uDE00\",\"\\u2028\\u2029\",\"\\u007F\\u0080\"]" },
        { "lone surrogates", new[] { "a\ud800b", "\udc00", "x\ud83d" }, "[\"a\\uFFFDb\",\"\\uFFFD\",\"x\\uFFFD\"]" },
        { "longs", new[] { 0L, 1L, -2L, long.MaxValue, long.MinValue }, "[0,1,-2,9223372036854775807,-9223372036854775808]" },
        { "ints", new[] { 0, -1, int.MaxValue, int.MinValue }, "[0,-1,2147483647,-2147483648]" },
        { "small integers", new object[] { (byte)255, (sbyte)-128, (short)-7, (ushort)65535, 4u, ulong.MaxValue }, "[255,-128,-7,65535,4,18446744073709551615]" },
        { "doubles", new[] { 0.0, -0.0, 0.1, 1.5, -2.25, 3.0, 1e300, 1e-300, double.Epsilon, double.MaxValue, 123456789012345680.0, 1.0 / 3 }, "[0,-0,0.1,1.5,-2.25,3,1E+300,1E-300,5E-324,1.7976931348623157E+308,1.2345678901234568E+17,0.3333333333333333]" },
        { "floats", new[] { 0.1f, -1.5f, 3f, float.MaxValue, 1e-10f }, "[0.1,-1.5,3,3.4028235E+38,1E-10]" },
        { "decimals", new[] { 1.10m, -0.5m, 79228162514264337593543950335m }, "[1.10,-0.5,79228162514264337593543950335]" },
        { "bools", new[] { true, false }, "[true,false]" },
        { "nulls", new object?[] { null, null }, "[null,null]" },
        { "nullable strings", new[] { "a", null, "b" }, "[\"a\",null,\"b\"]" },
        { "mixed", new object?[] { "s", 1, 2L, 1.5, 0.25f, true, null, 'c', "é\"" }, "[\"s\",1,2,1.5,0.25,true,null,\"c\",\"\\u00E9\\u0022\"]" },
        { "nested", new object?[] { new[] { 1, 2 }, new[] { "x" }, new object?[] { null, new[] { true } }, Array.Empty<long>() }, "[[1,2],[\"x\"],[null,[true]],[]]" },
        { "chars", new[] { 'a', '"', '\n', 'é' }, "[\"a\",\"\\u0022\",\"\\n\",\"\\u00E9\"]" },
        { "list", new List<string> { "x", "y" }, "[\"x\",\"y\"]" },
        { "enum", new[] { DayOfWeek.Monday, DayOfWeek.Sunday }, "[1,0]" },
        { "dates", new object[] { new DateTime(2024, 1, 2, 3, 4, 5, DateTimeKind.Utc), new DateTime(2024, 1, 2, 3, 4, 5, 678, DateTimeKind.Unspecified), new DateTimeOffset(2024, 1, 2, 3, 4, 5, TimeSpan.FromHours(2)) }, "[\"2024-01-02T03:04:05Z\",\"2024-01-02T03:04:05.678\",\"2024-01-02T03:04:05+02:00\"]" },
        { "guid", new[] { new Guid("0f8fad5b-d9cb-469f-a165-70867728950e") }, "[\"0f8fad5b-d9cb-469f-a165-70867728950e\"]" },
        { "other types as their strings", new object[] { new Version(1, 2), new Uri("http://x/") }, "[\"1.2\",\"http://x/\"]" },
    };

    [Theory]
    [MemberData(nameof(Arrays))]
    public void AnArrayIsPrintedAsTheSameJsonAsBefore(string description, object array, string expected)
    {
        _ = description;
        Assert.Equal(expected, ExportedNames.FormatLabelValue(array));
    }

    [Fact]
    public void NaNAndTheInfinitiesInAnArrayAreNamedAsStrings()
    {
        // JSON has no literal for them; JsonSerializer threw an ArgumentException here.
        Assert.Equal("[\"NaN\",\"Infinity\",\"-Infinity\",1]", ExportedNames.FormatLabelValue(new[] { double.NaN, double.PositiveInfinity, double.NegativeInfinity, 1.0 }));
        Assert.Equal("[\"NaN\",\"-Infinity\"]", ExportedNames.FormatLabelValue(new[] { float.NaN, float.NegativeInfinity }));
    }
}
