using Google.Protobuf;
using ScalableMetrics.Naming;

namespace ScalableMetrics.Exporter.Prometheus.Exposition;

/// <summary>
/// Writes one family at a time in Prometheus' protobuf exposition: a length-delimited
/// <c>io.prometheus.client.MetricFamily</c> message (name, help, type, then one <c>Metric</c> per
/// series), the form Prometheus asks for as
/// <c>application/vnd.google.protobuf; proto=io.prometheus.client.MetricFamily; encoding=delimited</c>
/// and the only one in which it takes native histograms.
/// </summary>
/// <remarks>
/// <para>A family's messages are kept until <see cref="End"/>, since the family's length comes
/// before it; the delimited families, like the text format's, follow one another, so a family
/// written by another writer can be copied in as it is.</para>
/// <para>Names are the text format 0.0.4's: a counter's family is its sample name <c>B_total</c>,
/// as client_golang's protobuf exposition names it. No <c>_created</c>: Prometheus 2.42 reads no
/// created timestamp from protobuf. Not thread-safe: a scrape at a time.</para>
/// </remarks>
internal sealed class ProtobufFamilyWriter
{
    private readonly MemoryStream _metrics = new();
    private readonly ProtobufScratch _scratch = new();
    private CodedOutputStream? _metricsOutput;
    private string? _name;
    private string? _help;
    private int _type;

    /// <summary>The type of the family begun.</summary>
    public ExportedKind Type { get; private set; }

    /// <summary>Begins the family <paramref name="name"/>.</summary>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="type"/> is not a type the format carries.</exception>
    public void Begin(string name, ExportedKind type, string? help)
    {
        _type = type switch
        {
            ExportedKind.Counter => ProtobufMessages.TypeCounter,
            ExportedKind.Gauge or ExportedKind.Info => ProtobufMessages.TypeGauge,
            ExportedKind.Summary => ProtobufMessages.TypeSummary,
            ExportedKind.Histogram => ProtobufMessages.TypeHistogram,
            _ => throw new ArgumentOutOfRangeException(nameof(type), type, "Not a type the protobuf exposition carries."),
        };
        Type = type;
        _name = name;
        _help = help;
        _metrics.SetLength(0);
        _metricsOutput = new CodedOutputStream(_metrics, leaveOpen: true);
    }

    /// <summary>A counter's or gauge's series: <c>Metric { label…, counter { value, exemplar } | gauge { value } }</c>.</summary>
    public void AddValue(LabelBlock labels, double value, Exemplar? exemplar = null) =>
        AddMetric(labels, Type == ExportedKind.Counter ? ProtobufMessages.MetricCounter : ProtobufMessages.MetricGauge, (value, exemplar, counter: Type == ExportedKind.Counter), static (output, v, scratch) =>
        {
            ProtobufMessages.WriteDouble(output, ProtobufMessages.ValueField, v.value);
            if (v.counter && v.exemplar is { } e)
            {
                WriteExemplar(output, ProtobufMessages.CounterExemplar, e, scratch, 2);
            }
        });

    /// <summary>A summary's series without quantiles: <c>Metric { label…, summary { sample_count, sample_sum } }</c>.</summary>
    public void AddSummary(LabelBlock labels, long count, double sum) =>
        AddMetric(labels, ProtobufMessages.MetricSummary, (count, sum), static (output, s, _) =>
        {
            ProtobufMessages.WriteUInt64(output, ProtobufMessages.SummaryCount, s.count);
            ProtobufMessages.WriteDouble(output, ProtobufMessages.SummarySum, s.sum);
        });

    /// <summary>
    /// A classic histogram's series: <c>Metric { label…, histogram { sample_count, sample_sum,
    /// bucket { cumulative_count, upper_bound }… } }</c>, a bucket per finite boundary (the +Inf
    /// bucket is the sample count, and client_golang leaves it out too, unless it has an exemplar:
    /// then, as client_golang does, a bucket of upper bound +Inf carries it).
    /// </summary>
    /// <param name="labels">The series' labels.</param>
    /// <param name="boundaries">The finite upper bounds, increasing.</param>
    /// <param name="cumulativeCounts">The cumulative count of each boundary's bucket.</param>
    /// <param name="count">The series' count (the +Inf bucket's).</param>
    /// <param name="sum">The series' sum.</param>
    /// <param name="exemplars">One per bucket, the last the +Inf bucket's, or null for none.</param>
    public void AddHistogram(LabelBlock labels, IReadOnlyList<double> boundaries, IReadOnlyList<long> cumulativeCounts, long count, double sum, IReadOnlyList<Exemplar?>? exemplars = null) =>
        AddMetric(labels, ProtobufMessages.MetricHistogram, (boundaries, cumulativeCounts, count, sum, exemplars), static (output, h, scratch) =>
        {
            ProtobufMessages.WriteUInt64(output, ProtobufMessages.HistogramCount, h.count);
            ProtobufMessages.WriteDouble(output, ProtobufMessages.HistogramSum, h.sum);
            for (int i = 0; i < h.boundaries.Count; i++)
            {
                WriteBucket(output, h.cumulativeCounts[i], h.boundaries[i], h.exemplars?[i], scratch);
            }

            if (h.exemplars?[h.boundaries.Count] is { } infinite)
            {
                WriteBucket(output, h.count, double.PositiveInfinity, infinite, scratch);
            }
        });

    /// <summary>An exponential histogram's series as a native histogram (<see cref="NativeHistogramEncoder"/>), with the classic buckets given, if any, in the same message.</summary>
    public void AddNativeHistogram(LabelBlock labels, ExponentialHistogramReading reading, ClassicBuckets? classic) =>
        AddMetric(labels, ProtobufMessages.MetricHistogram, (reading, classic), static (output, h, scratch) =>
        {
            NativeHistogramEncoder.Write(output, h.reading, scratch, 2);

            // The +Inf bucket is the sample count, which the native buckets make exact (Prometheus
            // checks it against them); a classic count read a moment apart from it (a record under
            // way) is capped by it, so that the buckets stay cumulative.
            for (int i = 0; i < (h.classic?.Boundaries.Count ?? 0); i++)
            {
                WriteBucket(output, Math.Min(h.classic!.CumulativeCounts[i], h.reading.Count), h.classic.Boundaries[i], null, scratch);
            }
        });

    /// <summary>Drops the family begun, if any (a scrape starting over).</summary>
    public void Discard()
    {
        _name = null;
        _metricsOutput = null;
    }

    /// <summary>Ends the family begun: writes its delimited message to <paramref name="output"/>.</summary>
    public void End(PrometheusTextWriter output)
    {
        if (_name is null)
        {
            return;
        }

        _metricsOutput!.Flush();
        ByteString header = _scratch.Encode(0, (name: _name, help: _help, type: _type), static (o, family) =>
        {
            ProtobufMessages.WriteString(o, ProtobufMessages.FamilyName, family.name);
            ProtobufMessages.WriteString(o, ProtobufMessages.FamilyHelp, family.help);
            ProtobufMessages.WriteInt32(o, ProtobufMessages.FamilyType, family.type);
        });
        ReadOnlySpan<byte> metrics = _metrics.GetBuffer().AsSpan(0, (int)_metrics.Length);

        // Delimited: the message's length as a varint, then the message.
        ulong length = (ulong)(header.Length + metrics.Length);
        while (length >= 0x80)
        {
            output.Write((byte)(length | 0x80));
            length >>= 7;
        }

        output.Write((byte)length);
        output.Write(header.Span);
        output.Write(metrics);
        _name = null;
        _metricsOutput = null;
    }

    private static void WriteBucket(CodedOutputStream output, long cumulativeCount, double upperBound, Exemplar? exemplar, ProtobufScratch scratch) =>
        ProtobufMessages.WriteMessage(output, ProtobufMessages.HistogramBucket, scratch.Encode(2, (cumulativeCount, upperBound, exemplar, scratch), static (o, bucket) =>
        {
            ProtobufMessages.WriteUInt64(o, ProtobufMessages.BucketCumulativeCount, bucket.cumulativeCount);
            ProtobufMessages.WriteDouble(o, ProtobufMessages.BucketUpperBound, bucket.upperBound);
            if (bucket.exemplar is { } e)
            {
                WriteExemplar(o, ProtobufMessages.BucketExemplar, e, bucket.scratch, 3);
            }
        }));

    // Exemplar { label trace_id, label span_id, value, timestamp { seconds, nanos } }, encoded at depth and depth + 1.
    private static void WriteExemplar(CodedOutputStream output, int field, Exemplar exemplar, ProtobufScratch scratch, int depth) =>
        ProtobufMessages.WriteMessage(output, field, scratch.Encode(depth, (exemplar, scratch, depth), static (o, x) =>
        {
            ProtobufMessages.WriteMessage(o, ProtobufMessages.ExemplarLabel, ProtobufMessages.LabelPair(ExportedNames.ExemplarTraceIdLabel, x.exemplar.TraceId.ToHexString()));
            ProtobufMessages.WriteMessage(o, ProtobufMessages.ExemplarLabel, ProtobufMessages.LabelPair(ExportedNames.ExemplarSpanIdLabel, x.exemplar.SpanId.ToHexString()));
            ProtobufMessages.WriteDouble(o, ProtobufMessages.ExemplarValue, x.exemplar.Value);
            long ticks = x.exemplar.Timestamp.UtcTicks - DateTimeOffset.UnixEpoch.UtcTicks;
            ProtobufMessages.WriteMessage(o, ProtobufMessages.ExemplarTimestamp, x.scratch.Encode(x.depth + 1, ticks, static (t, unixTicks) =>
            {
                t.WriteTag(ProtobufMessages.TimestampSeconds, WireFormat.WireType.Varint);
                t.WriteInt64(Math.DivRem(unixTicks, TimeSpan.TicksPerSecond, out long remainder));
                t.WriteTag(ProtobufMessages.TimestampNanos, WireFormat.WireType.Varint);
                t.WriteInt32((int)(remainder * 100));
            }));
        }));

    private void AddMetric<TState>(LabelBlock labels, int field, TState state, Action<CodedOutputStream, TState, ProtobufScratch> write)
    {
        if (_metricsOutput is null)
        {
            throw new InvalidOperationException("A series written before its family's header.");
        }

        ByteString metric = _scratch.Encode(0, (labels, field, state, write, scratch: _scratch), static (o, m) =>
        {
            foreach (ByteString label in m.labels.ProtobufLabelPairs)
            {
                ProtobufMessages.WriteMessage(o, ProtobufMessages.MetricLabel, label);
            }

            ProtobufMessages.WriteMessage(o, m.field, m.scratch.Encode(1, m, static (inner, s) => s.write(inner, s.state, s.scratch)));
        });
        ProtobufMessages.WriteMessage(_metricsOutput, ProtobufMessages.FamilyMetric, metric);
    }
}
