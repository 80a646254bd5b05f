using Google.Protobuf;

namespace ScalableMetrics.Exporter.Prometheus.Exposition;

/// <summary>
/// Encodes the messages of Prometheus' <c>io/prometheus/client/metrics.proto</c> (prometheus/client_model)
/// by hand with <see cref="CodedOutputStream"/>: a handful of messages, so no generated code and no
/// Grpc.Tools. Field numbers are the proto's; the writer's tests decode them back.
/// </summary>
/// <remarks>
/// A nested message is encoded into its own buffer first, then written as a length-delimited field:
/// simple, at the cost of a copy per message (a scrape's cost, not a record's). Repeated scalars are
/// written unpacked, which proto2 and proto3 parsers both accept.
/// </remarks>
internal static class ProtobufMessages
{
    // MetricFamily.
    public const int FamilyName = 1;
    public const int FamilyHelp = 2;
    public const int FamilyType = 3;
    public const int FamilyMetric = 4;

    // Metric.
    public const int MetricLabel = 1;
    public const int MetricGauge = 2;
    public const int MetricCounter = 3;
    public const int MetricSummary = 4;
    public const int MetricHistogram = 7;

    // LabelPair, Gauge.value and Counter.value, Summary, Bucket, BucketSpan.
    public const int LabelName = 1;
    public const int LabelValue = 2;
    public const int ValueField = 1;
    public const int SummaryCount = 1;
    public const int SummarySum = 2;
    public const int BucketCumulativeCount = 1;
    public const int BucketUpperBound = 2;
    public const int SpanOffset = 1;
    public const int SpanLength = 2;

    // Histogram.
    public const int HistogramCount = 1;
    public const int HistogramSum = 2;
    public const int HistogramBucket = 3;
    public const int HistogramSchema = 5;
    public const int HistogramZeroThreshold = 6;
    public const int HistogramZeroCount = 7;
    public const int HistogramPositiveSpan = 12;
    public const int HistogramPositiveDelta = 13;

    // MetricType.
    public const int TypeCounter = 0;
    public const int TypeGauge = 1;
    public const int TypeSummary = 2;
    public const int TypeHistogram = 4;

    /// <summary>Encodes a message written by <paramref name="write"/> into a new array.</summary>
    public static byte[] Encode<TState>(TState state, Action<CodedOutputStream, TState> write)
    {
        using var buffer = new MemoryStream();
        using (var output = new CodedOutputStream(buffer, leaveOpen: true))
        {
            write(output, state);
        }

        return buffer.ToArray();
    }

    /// <summary>Writes <paramref name="message"/> as the embedded-message field <paramref name="field"/>.</summary>
    public static void WriteMessage(CodedOutputStream output, int field, byte[] message)
    {
        output.WriteTag(field, WireFormat.WireType.LengthDelimited);
        // A bytes field and an embedded message share their wire form: the length, then the bytes.
        output.WriteBytes(ByteString.CopyFrom(message));
    }

    /// <summary>Writes a string field, skipping the empty string (proto2's absent).</summary>
    public static void WriteString(CodedOutputStream output, int field, string? value)
    {
        if (!string.IsNullOrEmpty(value))
        {
            output.WriteTag(field, WireFormat.WireType.LengthDelimited);
            output.WriteString(value);
        }
    }

    /// <summary>Writes a double field.</summary>
    public static void WriteDouble(CodedOutputStream output, int field, double value)
    {
        output.WriteTag(field, WireFormat.WireType.Fixed64);
        output.WriteDouble(value);
    }

    /// <summary>Writes a uint64 field; a saturated count is <see cref="long.MaxValue"/>, never negative.</summary>
    public static void WriteUInt64(CodedOutputStream output, int field, long value)
    {
        output.WriteTag(field, WireFormat.WireType.Varint);
        output.WriteUInt64((ulong)value);
    }

    /// <summary>A <c>Gauge</c> or <c>Counter</c> message: its value alone.</summary>
    public static byte[] Value(double value) => Encode(value, static (output, v) => WriteDouble(output, ValueField, v));

    /// <summary>A <c>LabelPair</c> message.</summary>
    public static byte[] Label(KeyValuePair<string, string> label) => Encode(label, static (output, l) =>
    {
        WriteString(output, LabelName, l.Key);
        WriteString(output, LabelValue, l.Value);
    });
}
