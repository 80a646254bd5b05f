using Google.Protobuf;
using ScalableMetrics.Exporter.Prometheus.Sources;

namespace ScalableMetrics.Exporter.Prometheus.Exposition;

/// <summary>
/// Writes a <see cref="MetricRegistry"/> in Prometheus' protobuf exposition (<see cref="ContentType"/>):
/// one length-delimited <c>io.prometheus.client.MetricFamily</c> message per family, the only format
/// in which Prometheus takes native histograms.
/// </summary>
/// <remarks>
/// <para>Every kind the text exposition writes, under the same family names, help and labels
/// (<c>otel_scope_name</c>, <c>otel_scope_version</c>, then the series' tags): counters
/// (<c>COUNTER</c>, named <c>B_total</c>), up-down counters, gauges and observable gauges
/// (<c>GAUGE</c>), histograms and operations with boundaries (<c>HISTOGRAM</c>, classic buckets,
/// finite boundaries only: the +Inf bucket is optional in the proto), operations without
/// (<c>SUMMARY</c>), and exponential histograms (<c>HISTOGRAM</c> with the native fields only, see
/// <see cref="NativeHistogramEncoder"/>). A family with no series is not written.</para>
/// <para>Only the registry: OpenTelemetry meters and listened meters are written in text only.</para>
/// <para>Not thread-safe: a scrape at a time.</para>
/// </remarks>
internal sealed class ProtobufExpositionWriter
{
    /// <summary>The content type of the exposition, as Prometheus asks for it in <c>Accept</c>.</summary>
    public const string ContentType = "application/vnd.google.protobuf; proto=io.prometheus.client.MetricFamily; encoding=delimited";

    private readonly MetricRegistry _registry;
    private readonly KeyValuePair<string, string>[] _scopeLabels;

    /// <summary>Creates a writer of <paramref name="registry"/> whose samples carry the scope's labels.</summary>
    public ProtobufExpositionWriter(MetricRegistry registry, string scopeName, string? scopeVersion)
    {
        _registry = registry;
        _scopeLabels = string.IsNullOrEmpty(scopeVersion)
            ? [new(ExportedNames.ScopeNameLabel, scopeName)]
            : [new(ExportedNames.ScopeNameLabel, scopeName), new(ExportedNames.ScopeVersionLabel, scopeVersion)];
    }

    /// <summary>Collects every instrument and writes the exposition.</summary>
    /// <returns>The delimited <c>MetricFamily</c> messages, one after the other.</returns>
    public byte[] Write()
    {
        using var buffer = new MemoryStream();
        using (var output = new CodedOutputStream(buffer, leaveOpen: true))
        {
            foreach (Instrument instrument in _registry.Instruments)
            {
                RegistryFamily family = RegistryFamily.Create(instrument);
                if (family.Type == PrometheusType.Unsupported)
                {
                    continue;
                }

                List<byte[]> metrics = Collect(instrument);
                if (metrics.Count > 0)
                {
                    // A delimited message: its length as a varint, then the message.
                    output.WriteBytes(ByteString.CopyFrom(Family(family, family.Type, metrics)));
                }
            }
        }

        return buffer.ToArray();
    }

    private List<byte[]> Collect(Instrument instrument)
    {
        var metrics = new List<byte[]>();
        switch (instrument)
        {
            case PartitionedCounter counter:
                metrics.AddRange(counter.Collect().Select(r => Metric(r.Tags, ProtobufMessages.MetricCounter, ProtobufMessages.Value(r.Value))));
                break;
            case PartitionedDoubleCounter counter:
                metrics.AddRange(counter.Collect().Select(r => Metric(r.Tags, ProtobufMessages.MetricCounter, ProtobufMessages.Value(r.Value))));
                break;
            case ObservableCounter counter:
                metrics.AddRange(TryObserve(counter).Select(r => Metric(r.Tags, ProtobufMessages.MetricCounter, ProtobufMessages.Value(r.Value))));
                break;
            case ObservableInstrument observable:
                metrics.AddRange(TryObserve(observable).Select(r => Metric(r.Tags, ProtobufMessages.MetricGauge, ProtobufMessages.Value(r.Value))));
                break;
            case PartitionedUpDownCounter counter:
                metrics.AddRange(counter.Collect().Select(r => Metric(r.Tags, ProtobufMessages.MetricGauge, ProtobufMessages.Value(r.Value))));
                break;
            case PartitionedDoubleUpDownCounter counter:
                metrics.AddRange(counter.Collect().Select(r => Metric(r.Tags, ProtobufMessages.MetricGauge, ProtobufMessages.Value(r.Value))));
                break;
            case Gauge gauge:
                metrics.AddRange(gauge.Collect().Select(r => Metric(r.Tags, ProtobufMessages.MetricGauge, ProtobufMessages.Value(r.Value))));
                break;
            case DoubleGauge gauge:
                metrics.AddRange(gauge.Collect().Select(r => Metric(r.Tags, ProtobufMessages.MetricGauge, ProtobufMessages.Value(r.Value))));
                break;
            case PartitionedHistogram histogram:
                metrics.AddRange(histogram.Collect().Select(r => Metric(r.Tags, ProtobufMessages.MetricHistogram, ClassicHistogram(r.Boundaries, r.BucketCounts, r.Count, r.Sum))));
                break;
            case PartitionedExponentialHistogram histogram:
                metrics.AddRange(histogram.Collect().Select(r => Metric(r.Tags, ProtobufMessages.MetricHistogram, NativeHistogramEncoder.Encode(r))));
                break;
            case OperationData operation:
                foreach (OperationReading r in operation.Collect())
                {
                    metrics.Add(operation.Boundaries is { } boundaries && r.BucketCounts is { } counts
                        ? Metric(r.Tags, ProtobufMessages.MetricHistogram, ClassicHistogram(boundaries, counts, r.Count, r.ElapsedSeconds))
                        : Metric(r.Tags, ProtobufMessages.MetricSummary, Summary(r.Count, r.ElapsedSeconds)));
                }

                break;
        }

        return metrics;
    }

    // The callback is the service's code: a failure leaves the instrument out, as in the text exposition.
    private static IReadOnlyList<DoubleReading> TryObserve(ObservableInstrument observable)
    {
        try
        {
            return observable.Collect();
        }
        catch (InvalidOperationException)
        {
            return [];
        }
    }

    private static byte[] Family(RegistryFamily family, PrometheusType type, List<byte[]> metrics) => ProtobufMessages.Encode((family, type, metrics), static (output, f) =>
    {
        ProtobufMessages.WriteString(output, ProtobufMessages.FamilyName, f.family.Name);
        ProtobufMessages.WriteString(output, ProtobufMessages.FamilyHelp, f.family.Help);
        output.WriteTag(ProtobufMessages.FamilyType, WireFormat.WireType.Varint);
        output.WriteEnum(f.type switch
        {
            PrometheusType.Counter => ProtobufMessages.TypeCounter,
            PrometheusType.Histogram => ProtobufMessages.TypeHistogram,
            PrometheusType.Summary => ProtobufMessages.TypeSummary,
            _ => ProtobufMessages.TypeGauge,
        });
        foreach (byte[] metric in f.metrics)
        {
            ProtobufMessages.WriteMessage(output, ProtobufMessages.FamilyMetric, metric);
        }
    });

    private byte[] Metric(TagSet tags, int valueField, byte[] value) => ProtobufMessages.Encode((labels: Labels(tags), valueField, value), static (output, m) =>
    {
        foreach (KeyValuePair<string, string> label in m.labels)
        {
            ProtobufMessages.WriteMessage(output, ProtobufMessages.MetricLabel, ProtobufMessages.Label(label));
        }

        ProtobufMessages.WriteMessage(output, m.valueField, m.value);
    });

    private static byte[] ClassicHistogram(IReadOnlyList<double> boundaries, IReadOnlyList<long> bucketCounts, long count, double sum) =>
        ProtobufMessages.Encode((boundaries, bucketCounts, count, sum), static (output, h) =>
        {
            ProtobufMessages.WriteUInt64(output, ProtobufMessages.HistogramCount, h.count);
            ProtobufMessages.WriteDouble(output, ProtobufMessages.HistogramSum, h.sum);
            long cumulative = 0;
            for (int i = 0; i < h.boundaries.Count; i++)
            {
                cumulative = h.bucketCounts[i] > long.MaxValue - cumulative ? long.MaxValue : cumulative + h.bucketCounts[i];
                long bucketCount = cumulative;
                double upperBound = h.boundaries[i];
                ProtobufMessages.WriteMessage(output, ProtobufMessages.HistogramBucket, ProtobufMessages.Encode((bucketCount, upperBound), static (o, b) =>
                {
                    ProtobufMessages.WriteUInt64(o, ProtobufMessages.BucketCumulativeCount, b.bucketCount);
                    ProtobufMessages.WriteDouble(o, ProtobufMessages.BucketUpperBound, b.upperBound);
                }));
            }
        });

    private static byte[] Summary(long count, double sum) => ProtobufMessages.Encode((count, sum), static (output, s) =>
    {
        ProtobufMessages.WriteUInt64(output, ProtobufMessages.SummaryCount, s.count);
        ProtobufMessages.WriteDouble(output, ProtobufMessages.SummarySum, s.sum);
    });

    // The text exposition's labels (LabelBlock): the scope's, then the tags' sanitized names, values of tags that meet under one name joined with ';'; empty values left out.
    private List<KeyValuePair<string, string>> Labels(TagSet tags)
    {
        List<KeyValuePair<string, string>> sorted = [.. tags
            .OrderBy(static tag => tag.Key, StringComparer.Ordinal)
            .Select(static tag => new KeyValuePair<string, string>(TagLabelName(tag.Key), ExportedNames.FormatLabelValue(tag.Value)))
            .OrderBy(static label => label.Key, StringComparer.Ordinal)];
        List<KeyValuePair<string, string>> labels = [.. _scopeLabels.Where(static label => label.Value.Length > 0)];
        for (int i = 0; i < sorted.Count;)
        {
            string name = sorted[i].Key;
            string value = sorted[i].Value;
            for (i++; i < sorted.Count && string.Equals(sorted[i].Key, name, StringComparison.Ordinal); i++)
            {
                value = value + ";" + sorted[i].Value;
            }

            if (value.Length > 0)
            {
                labels.Add(new(name, value));
            }
        }

        return labels;
    }

    private static string TagLabelName(string key)
    {
        string name = ExportedNames.SanitizeLabelName(key);
        return LabelBlock.IsScopeLabelName(name) ? "tag_" + name : name;
    }
}
