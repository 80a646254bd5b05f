using Google.Protobuf;

namespace ScalableMetrics.Exporter.Prometheus.Exposition;

/// <summary>
/// Encodes an <see cref="ExponentialHistogramReading"/> as the native-histogram fields of Prometheus'
/// <c>Histogram</c> message: schema (the scale), zero threshold and count, positive spans and deltas,
/// sample count and sum.
/// </summary>
/// <remarks>
/// <para>Prometheus numbers a bucket by its upper boundary, base^i, where OpenTelemetry (and the
/// reading) number it by its lower one, base^i for (base^i, base^(i + 1)]: the first span's offset
/// is the reading's offset + 1, as OpenTelemetry's collector converts it.</para>
/// <para>Spans: a run of more than <see cref="MaxEmptyRunInSpan"/> empty buckets starts a new span,
/// a shorter one is written as zero deltas (cheaper than a span), as client_golang does. A
/// histogram with no positive bucket carries the no-op span (offset 0, length 0) that tells it from
/// a classic histogram.</para>
/// </remarks>
internal static class NativeHistogramEncoder
{
    /// <summary>The longest run of empty buckets kept inside a span.</summary>
    public const int MaxEmptyRunInSpan = 2;

    /// <summary>The <c>Histogram</c> message of <paramref name="reading"/>.</summary>
    public static byte[] Encode(ExponentialHistogramReading reading) => ProtobufMessages.Encode(reading, static (output, r) =>
    {
        ProtobufMessages.WriteUInt64(output, ProtobufMessages.HistogramCount, r.Count);
        ProtobufMessages.WriteDouble(output, ProtobufMessages.HistogramSum, r.Sum);
        output.WriteTag(ProtobufMessages.HistogramSchema, WireFormat.WireType.Varint);
        output.WriteSInt32(r.Scale);
        ProtobufMessages.WriteDouble(output, ProtobufMessages.HistogramZeroThreshold, r.ZeroThreshold);
        ProtobufMessages.WriteUInt64(output, ProtobufMessages.HistogramZeroCount, r.ZeroCount);
        WriteSpansAndDeltas(output, r.PositiveOffset + 1, r.PositiveBucketCounts);
    });

    private static void WriteSpansAndDeltas(CodedOutputStream output, int firstIndex, IReadOnlyList<long> counts)
    {
        if (counts.Count == 0)
        {
            WriteSpan(output, 0, 0);
            return;
        }

        // The reading's first and last buckets are not empty: spans end where a longer empty run starts.
        var spans = new List<(int Start, int Length)>();
        int start = 0;
        int lastNonEmpty = 0;
        for (int j = 1; j < counts.Count; j++)
        {
            if (counts[j] == 0)
            {
                continue;
            }

            if (j - lastNonEmpty - 1 > MaxEmptyRunInSpan)
            {
                spans.Add((start, lastNonEmpty - start + 1));
                start = j;
            }

            lastNonEmpty = j;
        }

        spans.Add((start, lastNonEmpty - start + 1));
        int previousEnd = -firstIndex;
        foreach ((int spanStart, int length) in spans)
        {
            // The first span's offset is its bucket index; the others', the gap after the span before.
            WriteSpan(output, spanStart - previousEnd, length);
            previousEnd = spanStart + length;
        }

        long previous = 0;
        foreach ((int spanStart, int length) in spans)
        {
            for (int j = spanStart; j < spanStart + length; j++)
            {
                output.WriteTag(ProtobufMessages.HistogramPositiveDelta, WireFormat.WireType.Varint);
                output.WriteSInt64(counts[j] - previous);
                previous = counts[j];
            }
        }
    }

    private static void WriteSpan(CodedOutputStream output, int offset, int length) =>
        ProtobufMessages.WriteMessage(output, ProtobufMessages.HistogramPositiveSpan, ProtobufMessages.Encode((offset, length), static (o, span) =>
        {
            o.WriteTag(ProtobufMessages.SpanOffset, WireFormat.WireType.Varint);
            o.WriteSInt32(span.offset);
            o.WriteTag(ProtobufMessages.SpanLength, WireFormat.WireType.Varint);
            o.WriteUInt32((uint)span.length);
        }));
}
