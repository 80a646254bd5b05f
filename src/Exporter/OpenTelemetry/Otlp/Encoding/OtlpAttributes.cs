using System.Collections;
using ScalableMetrics.Exporter.Prometheus.Exposition;

namespace ScalableMetrics.Exporter.OpenTelemetry.Otlp.Encoding;

/// <summary>
/// Encodes attributes as OTLP <c>KeyValue</c> messages: a series' tags (string, bool,
/// <see cref="long"/>, <see cref="double"/>, as <see cref="TagSet"/> normalizes them) and the
/// resource's attributes, which may also be arrays of those (OpenTelemetry's attribute types), as
/// an <c>ArrayValue</c>. Thread-safe (no state).
/// </summary>
internal static class OtlpAttributes
{
    /// <summary>Writes each attribute with a value as a <c>KeyValue</c> in the repeated field <paramref name="field"/>; a null value is left out.</summary>
    /// <param name="output">Where to write.</param>
    /// <param name="field">The field number of the attributes in the message being written.</param>
    /// <param name="attributes">The attributes.</param>
    public static void Write(ProtobufBuffer output, int field, IEnumerable<KeyValuePair<string, object?>> attributes)
    {
        foreach (KeyValuePair<string, object?> attribute in attributes)
        {
            if (attribute.Value is not null)
            {
                int keyValue = output.BeginMessage(field);
                output.String(OtlpFields.KeyValueKey, attribute.Key);
                WriteValue(output, OtlpFields.KeyValueValue, attribute.Value);
                output.EndMessage(keyValue);
            }
        }
    }

    /// <summary>The tags of <paramref name="tags"/> as encoded <c>KeyValue</c> fields numbered <paramref name="field"/>, to keep with the series.</summary>
    /// <param name="scratch">A buffer to encode in; cleared first.</param>
    /// <param name="field">The field number of the attributes in the data point.</param>
    /// <param name="tags">The series' tags.</param>
    /// <returns>The encoded fields.</returns>
    public static byte[] Encode(ProtobufBuffer scratch, int field, TagSet tags)
    {
        scratch.Clear();
        ReadOnlySpan<KeyValuePair<string, object?>> span = tags.AsSpan();
        for (int i = 0; i < span.Length; i++)
        {
            int keyValue = scratch.BeginMessage(field);
            scratch.String(OtlpFields.KeyValueKey, span[i].Key);
            WriteValue(scratch, OtlpFields.KeyValueValue, span[i].Value!);
            scratch.EndMessage(keyValue);
        }

        return scratch.Written.ToArray();
    }

    private static void WriteValue(ProtobufBuffer output, int field, object value)
    {
        int any = output.BeginMessage(field);
        switch (value)
        {
            case string s:
                output.String(OtlpFields.AnyString, s);
                break;
            case bool b:
                output.Varint(OtlpFields.AnyBool, b ? 1UL : 0UL);
                break;
            case double d:
                output.Double(OtlpFields.AnyDouble, d);
                break;
            case float f:
                output.Double(OtlpFields.AnyDouble, f);
                break;
            case long or int or short or sbyte or byte or ushort or uint:
                output.Varint(OtlpFields.AnyInt, unchecked((ulong)Convert.ToInt64(value, System.Globalization.CultureInfo.InvariantCulture)));
                break;
            case IEnumerable items:
                int array = output.BeginMessage(OtlpFields.AnyArray);
                foreach (object? item in items)
                {
                    // An array's null entries stay, as empty AnyValues, so that positions keep their meaning.
                    if (item is null)
                    {
                        output.EndMessage(output.BeginMessage(OtlpFields.ArrayValues));
                    }
                    else
                    {
                        WriteValue(output, OtlpFields.ArrayValues, item);
                    }
                }

                output.EndMessage(array);
                break;
            default:
                // OpenTelemetry's exporters write any other type by its string form.
                output.String(OtlpFields.AnyString, Convert.ToString(value, System.Globalization.CultureInfo.InvariantCulture) ?? string.Empty);
                break;
        }

        output.EndMessage(any);
    }
}
