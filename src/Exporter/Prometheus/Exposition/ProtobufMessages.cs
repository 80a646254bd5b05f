namespace ScalableMetrics.Exporter.Prometheus.Exposition;

/// <summary>
/// The field numbers of Prometheus' <c>io/prometheus/client/metrics.proto</c> (prometheus/client_model)
/// that the protobuf exposition writes: a handful of messages, written by hand with
/// <see cref="ProtobufBuffer"/>, so no generated code and no Grpc.Tools. The tests decode every
/// message back with Google.Protobuf's <c>CodedInputStream</c>.
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
    public const int CounterCreatedTimestamp = 3;
    public const int SummaryCreatedTimestamp = 4;
    public const int HistogramCreatedTimestamp = 15;
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

    // Histogram.exemplars: a native histogram's, each with a timestamp (client_model#80).
    public const int HistogramExemplars = 16;

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

    /// <summary>
    /// The <c>label</c> fields of a <c>Metric</c> message for <paramref name="labels"/>: a
    /// <c>LabelPair { name, value }</c> each, in order, encoded once per series and copied as they
    /// are into each of its <c>Metric</c> messages.
    /// </summary>
    /// <param name="labels">The series' labels, names and values non-empty.</param>
    public static byte[] MetricLabels(IReadOnlyList<KeyValuePair<string, string>> labels)
    {
        var output = new ProtobufBuffer(256);
        foreach (KeyValuePair<string, string> label in labels)
        {
            WriteLabelPair(output, MetricLabel, label.Key, label.Value);
        }

        return output.WrittenSpan.ToArray();
    }

    /// <summary>Writes a <c>LabelPair { name, value }</c> as field <paramref name="field"/> of the message begun in <paramref name="output"/>
    /// (a <c>Metric</c>'s <c>label</c>, an <c>Exemplar</c>'s <c>label</c>); an empty name or value is left absent, as proto2 leaves it.</summary>
    public static void WriteLabelPair(ProtobufBuffer output, int field, string name, string value)
    {
        int pair = output.BeginMessage(field);
        output.NonEmptyString(LabelName, name);
        output.NonEmptyString(LabelValue, value);
        output.EndMessage(pair);
    }
}
