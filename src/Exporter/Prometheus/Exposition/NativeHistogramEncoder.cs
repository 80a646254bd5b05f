using System.Buffers;
using System.Diagnostics;
using ScalableMetrics.Instruments.ExponentialHistograms;
using ScalableMetrics.Instruments.Histograms;

namespace ScalableMetrics.Exporter.Prometheus.Exposition;

/// <summary>
/// Writes an exponential histogram series (<see cref="ExponentialHistogramPoint"/>, a reading's or one read in place) as the native-histogram fields of Prometheus'
/// <c>Histogram</c> message: sample count and sum, schema (the scale), zero threshold and count,
/// positive spans and deltas.
/// </summary>
/// <remarks>
/// <para>Prometheus numbers a bucket by its upper boundary, base^i, where OpenTelemetry (and the
/// reading) number it by its lower one, base^i for (base^i, base^(i + 1)]: the first span's offset
/// is the reading's offset + 1, as OpenTelemetry's collector converts it.</para>
/// <para>Spans: a run of more than <see cref="MaxEmptyRunInSpan"/> empty buckets starts a new span,
/// a shorter one is written as zero deltas (cheaper than a span), as client_golang does. A
/// histogram with no positive bucket carries the no-op span (offset 0, length 0) that tells it from
/// a classic histogram.</para>
/// <para>A scale above <see cref="MaxSchema"/> (OpenTelemetry's exponential histograms start at 20)
/// is written at <see cref="MaxSchema"/>, its buckets merged exactly, as OpenTelemetry's collector
/// and Prometheus' own clients reduce it: metrics.proto's schemas are -4 to 8. A scale below
/// <see cref="MinSchema"/> cannot be raised exactly and is not written here, but as classic buckets.</para>
/// </remarks>
internal static class NativeHistogramEncoder
{
    /// <summary>The longest run of empty buckets kept inside a span.</summary>
    public const int MaxEmptyRunInSpan = 2;

    /// <summary>The highest native histogram schema metrics.proto allows (and Prometheus reads).</summary>
    public const int MaxSchema = 8;

    /// <summary>The lowest native histogram schema metrics.proto allows: a lower scale is not written as a native histogram (<see cref="ProtobufWriter.WriteExponentialHistogram"/>).</summary>
    public const int MinSchema = -4;

    /// <summary>Writes the fields of the <c>Histogram</c> message of <paramref name="reading"/> into the message begun in <paramref name="output"/>.</summary>
    public static void Write(ProtobufBuffer output, ExponentialHistogramPoint reading)
    {
        Debug.Assert(reading.Scale >= MinSchema, "A scale below -4 is written as classic buckets, not here.");
        // A count is never negative (a saturated one is long.MaxValue): uint64 as it is.
        output.Varint(ProtobufMessages.HistogramCount, (ulong)reading.Count);
        output.Double(ProtobufMessages.HistogramSum, reading.Sum);
        output.ZigZag32(ProtobufMessages.HistogramSchema, Math.Min(reading.Scale, MaxSchema));
        output.Double(ProtobufMessages.HistogramZeroThreshold, reading.ZeroThreshold);
        output.Varint(ProtobufMessages.HistogramZeroCount, (ulong)reading.ZeroCount);
        ReadOnlySpan<long> counts = reading.PositiveBucketCounts;
        if (reading.Scale <= MaxSchema || counts.Length == 0)
        {
            WriteSpansAndDeltas(output, reading.PositiveOffset + 1, counts);
            return;
        }

        // Bucket i at scale s, (base^i, base^(i + 1)], lies inside bucket i >> (s - 8) at scale 8:
        // summing the buckets that share one keeps every count exact. Only another library's
        // histogram has such a scale (the registry's stop at 8), so the rented array is off the usual path.
        int shift = reading.Scale - MaxSchema;
        int offset = reading.PositiveOffset >> shift;
        int length = ((reading.PositiveOffset + counts.Length - 1) >> shift) - offset + 1;
        long[] rented = ArrayPool<long>.Shared.Rent(length);
        try
        {
            Span<long> merged = rented.AsSpan(0, length);
            merged.Clear();
            for (int j = 0; j < counts.Length; j++)
            {
                ref long bucket = ref merged[((reading.PositiveOffset + j) >> shift) - offset];
                bucket = SaturatingCounts.Add(bucket, counts[j]);
            }

            WriteSpansAndDeltas(output, offset + 1, merged);
        }
        finally
        {
            ArrayPool<long>.Shared.Return(rented);
        }
    }

    private static void WriteSpansAndDeltas(ProtobufBuffer output, int firstIndex, ReadOnlySpan<long> counts)
    {
        if (counts.Length == 0)
        {
            WriteSpan(output, 0, 0);
            return;
        }

        // The reading's first and last buckets are not empty: a span ends where a longer empty run starts.
        int previousEnd = -firstIndex;
        int start = 0;
        int lastNonEmpty = 0;
        for (int j = 1; j <= counts.Length; j++)
        {
            if (j < counts.Length && counts[j] == 0)
            {
                continue;
            }

            if (j == counts.Length || j - lastNonEmpty - 1 > MaxEmptyRunInSpan)
            {
                // The first span's offset is its bucket index; the others', the gap after the span before.
                WriteSpan(output, start - previousEnd, lastNonEmpty - start + 1);
                previousEnd = lastNonEmpty + 1;
                start = j;
            }

            lastNonEmpty = j;
        }

        // The deltas of the spans' buckets, in order: the buckets between spans are skipped.
        long previous = 0;
        int emptyRun = 0;
        for (int j = 0; j < counts.Length; j++)
        {
            if (counts[j] == 0)
            {
                emptyRun++;
                continue;
            }

            if (emptyRun <= MaxEmptyRunInSpan)
            {
                for (int k = 0; k < emptyRun; k++)
                {
                    WriteDelta(output, -previous);
                    previous = 0;
                }
            }

            emptyRun = 0;
            WriteDelta(output, counts[j] - previous);
            previous = counts[j];
        }
    }

    // Unpacked, a tag per delta: metrics.proto (proto2) declares the field without [packed = true].
    private static void WriteDelta(ProtobufBuffer output, long delta) =>
        output.ZigZag64(ProtobufMessages.HistogramPositiveDelta, delta);

    private static void WriteSpan(ProtobufBuffer output, int offset, int length)
    {
        int span = output.BeginMessage(ProtobufMessages.HistogramPositiveSpan);
        output.ZigZag32(ProtobufMessages.SpanOffset, offset);
        output.Varint(ProtobufMessages.SpanLength, (uint)length);
        output.EndMessage(span);
    }
}
