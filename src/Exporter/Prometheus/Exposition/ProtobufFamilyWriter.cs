using ScalableMetrics.Instruments.ExponentialHistograms;
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
/// <para>A family's message is kept until <see cref="End"/>, since the family's length comes
/// before it; the delimited families, like the text format's, follow one another, so a family
/// written by another writer can be copied in as it is. The message is encoded in place into one
/// buffer kept from scrape to scrape (<see cref="ProtobufBuffer"/>), a series' labels copied from the
/// bytes kept for its label block (<see cref="LabelBlockCache{TValue}"/>), encoded on the series'
/// first scrape: once the buffer has grown to fit a family, a scrape allocates nothing per message.</para>
/// <para>Names are the text format 0.0.4's: a counter's family is its sample name <c>B_total</c>,
/// as client_golang's protobuf exposition names it. A counter's, summary's or histogram's known
/// start is its message's <c>created_timestamp</c>, as client_golang writes it: a field of the
/// series, never a series of its own, which Prometheus reads as the series' start timestamp
/// (prometheus/prometheus#13279) and otherwise ignores. Not thread-safe: a scrape at a time.</para>
/// </remarks>
internal sealed class ProtobufFamilyWriter
{
    private readonly ProtobufBuffer _family = new();

    // Each series' labels as the label fields of its Metric message (ProtobufMessages.MetricLabels).
    private readonly LabelBlockCache<byte[]> _labels = new();
    private bool _begun;

    // A counter's Metric and Counter messages, left open after its value so that the created
    // timestamp that follows it (AddCreated) lands inside; closed by whatever is written next. -1: none open.
    private int _openMetric = -1;
    private int _openCounter = -1;

    /// <summary>The type of the family begun.</summary>
    public ExportedKind Type { get; private set; }

    /// <summary>Begins the family <paramref name="name"/>: its message's name, help and type.</summary>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="type"/> is not a type the format carries.</exception>
    public void Begin(string name, ExportedKind type, string? help)
    {
        int protobufType = type switch
        {
            ExportedKind.Counter => ProtobufMessages.TypeCounter,
            ExportedKind.Gauge or ExportedKind.Info => ProtobufMessages.TypeGauge,
            ExportedKind.Summary => ProtobufMessages.TypeSummary,
            ExportedKind.Histogram => ProtobufMessages.TypeHistogram,
            _ => throw new ArgumentOutOfRangeException(nameof(type), type, "Not a type the protobuf exposition carries."),
        };
        CloseCounter();
        Type = type;
        _family.Clear();
        _family.NonEmptyString(ProtobufMessages.FamilyName, name);
        _family.NonEmptyString(ProtobufMessages.FamilyHelp, help);
        _family.Varint(ProtobufMessages.FamilyType, (ulong)protobufType);
        _begun = true;
    }

    /// <summary>
    /// A counter's or gauge's series: <c>Metric { label…, counter { value, exemplar } | gauge { value } }</c>;
    /// a counter's messages are left open for its <c>created_timestamp</c> (<see cref="AddCreated"/>).
    /// </summary>
    public void AddValue(LabelBlock labels, double value, Exemplar? exemplar = null)
    {
        bool counter = Type == ExportedKind.Counter;
        int metric = BeginMetric(labels);
        int inner = _family.BeginMessage(counter ? ProtobufMessages.MetricCounter : ProtobufMessages.MetricGauge);
        _family.Double(ProtobufMessages.ValueField, value);
        if (!counter)
        {
            _family.EndMessage(inner);
            _family.EndMessage(metric);
            return;
        }

        if (exemplar is { } e)
        {
            WriteExemplar(ProtobufMessages.CounterExemplar, e);
        }

        _openMetric = metric;
        _openCounter = inner;
    }

    /// <summary>The <c>created_timestamp</c> of the counter series just added (<see cref="AddValue"/>); nothing after another kind's series.</summary>
    /// <param name="created">When the series started.</param>
    public void AddCreated(DateTimeOffset created)
    {
        if (_openCounter < 0)
        {
            return;
        }

        WriteTimestamp(ProtobufMessages.CounterCreatedTimestamp, created);
        CloseCounter();
    }

    /// <summary>A summary's series without quantiles: <c>Metric { label…, summary { sample_count, sample_sum, created_timestamp } }</c>.</summary>
    /// <param name="labels">The series' labels.</param>
    /// <param name="count">The series' count.</param>
    /// <param name="sum">The series' sum.</param>
    /// <param name="created">When the series started, or null (no <c>created_timestamp</c>).</param>
    public void AddSummary(LabelBlock labels, long count, double sum, DateTimeOffset? created = null)
    {
        int metric = BeginMetric(labels);
        int summary = _family.BeginMessage(ProtobufMessages.MetricSummary);
        _family.Varint(ProtobufMessages.SummaryCount, (ulong)count);
        _family.Double(ProtobufMessages.SummarySum, sum);
        WriteCreated(ProtobufMessages.SummaryCreatedTimestamp, created);

        _family.EndMessage(summary);
        _family.EndMessage(metric);
    }

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
    /// <param name="created">When the series started, or null (no <c>created_timestamp</c>).</param>
    public void AddHistogram(LabelBlock labels, IReadOnlyList<double> boundaries, IReadOnlyList<long> cumulativeCounts, long count, double sum, IReadOnlyList<Exemplar?>? exemplars = null, DateTimeOffset? created = null)
    {
        int metric = BeginMetric(labels);
        int histogram = _family.BeginMessage(ProtobufMessages.MetricHistogram);
        _family.Varint(ProtobufMessages.HistogramCount, (ulong)count);
        _family.Double(ProtobufMessages.HistogramSum, sum);
        for (int i = 0; i < boundaries.Count; i++)
        {
            WriteBucket(cumulativeCounts[i], boundaries[i], exemplars?[i]);
        }

        if (exemplars?[boundaries.Count] is { } infinite)
        {
            WriteBucket(count, double.PositiveInfinity, infinite);
        }

        WriteCreated(ProtobufMessages.HistogramCreatedTimestamp, created);

        _family.EndMessage(histogram);
        _family.EndMessage(metric);
    }

    /// <summary>
    /// An exponential histogram's series as a native histogram (<see cref="NativeHistogramEncoder"/>), with the classic buckets given, if any, in the same message,
    /// its <c>created_timestamp</c> where <paramref name="created"/> is known, and its sampled exemplars (<see cref="ExponentialHistogramPoint.Exemplars"/>)
    /// in <c>exemplars</c>, the field client_model keeps for a native histogram's, each with its timestamp, which Prometheus requires there
    /// (client_golang writes its native exemplars there too). The classic buckets carry none, as before.
    /// </summary>
    public void AddNativeHistogram(LabelBlock labels, ExponentialHistogramPoint point, ClassicBuckets? classic, DateTimeOffset? created = null)
    {
        int metric = BeginMetric(labels);
        int histogram = _family.BeginMessage(ProtobufMessages.MetricHistogram);
        NativeHistogramEncoder.Write(_family, point);

        // The +Inf bucket is the sample count, which the native buckets make exact (Prometheus
        // checks it against them); a classic count read a moment apart from it (a record under
        // way) is capped by it, so that the buckets stay cumulative.
        for (int i = 0; i < (classic?.Boundaries.Count ?? 0); i++)
        {
            WriteBucket(Math.Min(classic!.CumulativeCounts[i], point.Count), classic.Boundaries[i], null);
        }

        WriteCreated(ProtobufMessages.HistogramCreatedTimestamp, created);

        foreach (Exemplar exemplar in point.Exemplars)
        {
            WriteExemplar(ProtobufMessages.HistogramExemplars, exemplar);
        }

        _family.EndMessage(histogram);
        _family.EndMessage(metric);
    }

    /// <summary>Starts a scrape over: drops the family begun, if any, and begins the next scrape of the kept labels (<see cref="LabelBlockCache{TValue}.BeginScrape"/>).</summary>
    public void Restart()
    {
        _openMetric = -1;
        _openCounter = -1;
        _begun = false;
        _labels.BeginScrape();
    }

    /// <summary>Ends the family begun: writes its delimited message to <paramref name="output"/>.</summary>
    public void End(PrometheusTextWriter output)
    {
        CloseCounter();
        if (!_begun)
        {
            return;
        }

        // Delimited: the message's length as a varint, then the message.
        ReadOnlySpan<byte> message = _family.WrittenSpan;
        ulong length = (ulong)message.Length;
        while (length >= 0x80)
        {
            output.Write((byte)(length | 0x80));
            length >>= 7;
        }

        output.Write((byte)length);
        output.Write(message);
        _begun = false;
    }

    // Bucket { cumulative_count, upper_bound, exemplar }.
    private void WriteBucket(long cumulativeCount, double upperBound, Exemplar? exemplar)
    {
        int bucket = _family.BeginMessage(ProtobufMessages.HistogramBucket);
        _family.Varint(ProtobufMessages.BucketCumulativeCount, (ulong)cumulativeCount);
        _family.Double(ProtobufMessages.BucketUpperBound, upperBound);
        if (exemplar is { } e)
        {
            WriteExemplar(ProtobufMessages.BucketExemplar, e);
        }

        _family.EndMessage(bucket);
    }

    // Exemplar { label trace_id, label span_id, value, timestamp { seconds, nanos } }.
    private void WriteExemplar(int field, Exemplar exemplar)
    {
        int message = _family.BeginMessage(field);

        // ToHexString returns the string the id keeps: nothing is allocated.
        // Kept outside a trace (ExemplarFilter.AlwaysOn): no labels.
        if (exemplar.TraceId != default)
        {
            ProtobufMessages.WriteLabelPair(_family, ProtobufMessages.ExemplarLabel, ExportedNames.ExemplarTraceIdLabel, exemplar.TraceId.ToHexString());
            ProtobufMessages.WriteLabelPair(_family, ProtobufMessages.ExemplarLabel, ExportedNames.ExemplarSpanIdLabel, exemplar.SpanId.ToHexString());
        }

        _family.Double(ProtobufMessages.ExemplarValue, exemplar.Value);
        WriteTimestamp(ProtobufMessages.ExemplarTimestamp, exemplar.Timestamp);
        _family.EndMessage(message);
    }

    // A summary's or histogram's created_timestamp, where the series' start is known.
    private void WriteCreated(int field, DateTimeOffset? created)
    {
        if (created is { } start)
        {
            WriteTimestamp(field, start);
        }
    }

    // google.protobuf.Timestamp { seconds, nanos }: nanos is 0 to 999,999,999 and counts forward
    // in time, so before the epoch the seconds are floored (timestamp.proto: "Negative second
    // values with fractions must still have non-negative nanos values that count forward in time").
    private void WriteTimestamp(int field, DateTimeOffset time)
    {
        long unixTicks = time.UtcTicks - DateTimeOffset.UnixEpoch.UtcTicks;
        long seconds = Math.DivRem(unixTicks, TimeSpan.TicksPerSecond, out long remainder);
        if (remainder < 0)
        {
            seconds--;
            remainder += TimeSpan.TicksPerSecond;
        }

        int timestamp = _family.BeginMessage(field);
        _family.SignExtendedVarint(ProtobufMessages.TimestampSeconds, seconds);
        _family.SignExtendedVarint(ProtobufMessages.TimestampNanos, remainder * 100);
        _family.EndMessage(timestamp);
    }

    // Ends the counter's messages AddValue left open, if any.
    private void CloseCounter()
    {
        if (_openCounter < 0)
        {
            return;
        }

        _family.EndMessage(_openCounter);
        _family.EndMessage(_openMetric);
        _openCounter = -1;
        _openMetric = -1;
    }

    // Metric { label… }, its value's message next; returns where the metric starts, for EndMessage.
    private int BeginMetric(LabelBlock labels)
    {
        if (!_begun)
        {
            throw new InvalidOperationException("A series written before its family's header.");
        }

        CloseCounter();
        int metric = _family.BeginMessage(ProtobufMessages.FamilyMetric);
        ref byte[]? encoded = ref _labels.Find(labels);
        _family.Raw(encoded ??= ProtobufMessages.MetricLabels(labels.Labels));
        return metric;
    }
}
