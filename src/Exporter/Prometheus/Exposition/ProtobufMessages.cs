using Google.Protobuf;

namespace ScalableMetrics.Exporter.Prometheus.Exposition;

/// <summary>
/// The field numbers of Prometheus' <c>io/prometheus/client/metrics.proto</c> (prometheus/client_model)
/// that the protobuf exposition writes, and the encoding of a nested message: a handful of messages,
/// written by hand with Google.Protobuf's <see cref="CodedOutputStream"/>, so no generated code and
/// no Grpc.Tools. The tests decode every message back with <see cref="CodedInputStream"/>.
/// </summary>
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

    // LabelPair; Gauge.value and Counter.value; Counter.exemplar; Summary; Bucket; BucketSpan.
    public const int LabelName = 1;
    public const int LabelValue = 2;
    public const int ValueField = 1;
    public const int CounterExemplar = 2;
    public const int SummaryCount = 1;
    public const int SummarySum = 2;
    public const int BucketCumulativeCount = 1;
    public const int BucketUpperBound = 2;
    public const int BucketExemplar = 3;
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

    // Exemplar, and google.protobuf.Timestamp.
    public const int ExemplarLabel = 1;
    public const int ExemplarValue = 2;
    public const int ExemplarTimestamp = 3;
    public const int TimestampSeconds = 1;
    public const int TimestampNanos = 2;

    // MetricType.
    public const int TypeCounter = 0;
    public const int TypeGauge = 1;
    public const int TypeSummary = 2;
    public const int TypeHistogram = 4;

    /// <summary>A <c>LabelPair</c> message.</summary>
    public static ByteString LabelPair(string name, string value)
    {
        byte[] message = new byte[CodedOutputStream.ComputeStringSize(name) + CodedOutputStream.ComputeStringSize(value) + 2];
        var output = new CodedOutputStream(message);
        WriteString(output, LabelName, name);
        WriteString(output, LabelValue, value);
        output.CheckNoSpaceLeft();
        return UnsafeByteOperations.UnsafeWrap(message);
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

    /// <summary>Writes <paramref name="message"/>, an encoded message, as the embedded-message field <paramref name="field"/>.</summary>
    public static void WriteMessage(CodedOutputStream output, int field, ByteString message)
    {
        output.WriteTag(field, WireFormat.WireType.LengthDelimited);
        // A bytes field and an embedded message share their wire form: the length, then the bytes.
        output.WriteBytes(message);
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

    /// <summary>Writes an int32 or enum field.</summary>
    public static void WriteInt32(CodedOutputStream output, int field, int value)
    {
        output.WriteTag(field, WireFormat.WireType.Varint);
        output.WriteInt32(value);
    }
}
