using System.Buffers;
using System.Collections;
using System.Globalization;
using System.Text;
using System.Text.Json;

namespace ScalableMetrics.Naming;

/// <summary>
/// The printed form of an array tag value: a JSON array, as OpenTelemetry's Prometheus
/// compatibility specification asks, written with <see cref="Utf8JsonWriter"/> and no
/// reflection, so that the library trims and compiles ahead of time (issue 21). Its output is
/// the one <c>JsonSerializer.Serialize</c> with default options wrote before, byte for byte
/// (<c>tests/Metrics.Tests/Naming/ArrayLabelValueTests.cs</c>): both escape with
/// <c>JavaScriptEncoder.Default</c>, so the result is ASCII. Thread-safe: nothing is shared.
/// </summary>
internal static class JsonLabelValue
{
    /// <summary>
    /// Writes <paramref name="sequence"/> as a JSON array: strings, chars, dates, date-times with
    /// offsets and GUIDs as JSON strings; integers, decimals and finite floating-point numbers as
    /// JSON numbers (enums as their underlying number); bools and nulls as JSON literals; nested
    /// sequences as nested arrays. JSON has no literal for NaN or the infinities, so they are the
    /// strings <c>"NaN"</c>, <c>"Infinity"</c> and <c>"-Infinity"</c> (as
    /// <c>JsonNumberHandling.AllowNamedFloatingPointLiterals</c> writes them), where the
    /// serializer threw. Any other element is the string of its invariant-culture
    /// <see cref="Convert.ToString(object, IFormatProvider)"/>, where the serializer wrote its
    /// public properties by reflection.
    /// </summary>
    /// <exception cref="InvalidOperationException">The sequence nests deeper than 1,000 arrays (for example, it holds itself).</exception>
    public static string Format(IEnumerable sequence)
    {
        var buffer = new ArrayBufferWriter<byte>();
        using (var writer = new Utf8JsonWriter(buffer))
        {
            WriteArray(writer, sequence);
        }

        return Encoding.UTF8.GetString(buffer.WrittenSpan);
    }

    private static void WriteArray(Utf8JsonWriter writer, IEnumerable sequence)
    {
        writer.WriteStartArray();
        foreach (object? item in sequence)
        {
            WriteValue(writer, item);
        }

        writer.WriteEndArray();
    }

    private static void WriteValue(Utf8JsonWriter writer, object? value)
    {
        switch (value)
        {
            case null:
                writer.WriteNullValue();
                break;
            case string text:
                writer.WriteStringValue(text);
                break;
            case bool flag:
                writer.WriteBooleanValue(flag);
                break;
            case char character:
                writer.WriteStringValue(new ReadOnlySpan<char>(in character));
                break;
            case Enum member:
                // The serializer's default enum converter writes the underlying number.
                if (member.GetTypeCode() == TypeCode.UInt64)
                {
                    writer.WriteNumberValue(Convert.ToUInt64(member, CultureInfo.InvariantCulture));
                }
                else
                {
                    writer.WriteNumberValue(Convert.ToInt64(member, CultureInfo.InvariantCulture));
                }

                break;
            case long number:
                writer.WriteNumberValue(number);
                break;
            case int number:
                writer.WriteNumberValue(number);
                break;
            case short number:
                writer.WriteNumberValue(number);
                break;
            case sbyte number:
                writer.WriteNumberValue(number);
                break;
            case ulong number:
                writer.WriteNumberValue(number);
                break;
            case uint number:
                writer.WriteNumberValue(number);
                break;
            case ushort number:
                writer.WriteNumberValue(number);
                break;
            case byte number:
                writer.WriteNumberValue(number);
                break;
            case double number when !double.IsFinite(number):
                writer.WriteStringValue(NonFiniteName(number));
                break;
            case float number when !float.IsFinite(number):
                writer.WriteStringValue(NonFiniteName(number));
                break;
            case double number:
                writer.WriteNumberValue(number);
                break;
            case float number:
                writer.WriteNumberValue(number);
                break;
            case decimal number:
                writer.WriteNumberValue(number);
                break;
            case DateTime time:
                writer.WriteStringValue(time);
                break;
            case DateTimeOffset time:
                writer.WriteStringValue(time);
                break;
            case Guid id:
                writer.WriteStringValue(id);
                break;
            case IEnumerable nested:
                WriteArray(writer, nested);
                break;
            default:
                writer.WriteStringValue(Convert.ToString(value, CultureInfo.InvariantCulture) ?? string.Empty);
                break;
        }
    }

    private static string NonFiniteName(double number) =>
        double.IsNaN(number) ? "NaN" : number > 0 ? "Infinity" : "-Infinity";
}
