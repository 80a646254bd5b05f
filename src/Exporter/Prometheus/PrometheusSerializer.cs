using System.Runtime.CompilerServices;
using OpenTelemetry;
using OpenTelemetry.Metrics;
using ScalableMetrics.Exporter.Prometheus.Exposition;

namespace ScalableMetrics.Exporter.Prometheus;

/// <summary>
/// Writes a batch of OpenTelemetry metrics in the Prometheus text exposition format 0.0.4:
/// per family a <c># HELP</c> line (when there is a description), a <c># TYPE</c> line and
/// its samples, without timestamps (Prometheus stamps them with the scrape's time).
/// Not thread-safe: a reader exports one collection at a time.
/// </summary>
internal sealed class PrometheusSerializer
{
    private static readonly Comparer<Entry> s_byGroupThenArrival =
        Comparer<Entry>.Create(static (a, b) => a.Group != b.Group ? a.Group.CompareTo(b.Group) : a.Arrival.CompareTo(b.Arrival));

    private readonly ConditionalWeakTable<Metric, PrometheusMetricFamily> _families = [];
    private readonly Dictionary<string, int> _familyOrder = new(StringComparer.Ordinal);
    private readonly List<Entry> _entries = [];
    private readonly List<KeyValuePair<string, object?>> _tags = [];
    private readonly PrometheusTextWriter _labelScratch = new();
    private readonly List<PrometheusCollection.Family> _written = [];

    /// <summary>The metrics of this meter are left out: the registry's, written from the registry itself.</summary>
    public string? ExcludedMeterName { get; init; }

    public ExpositionWriter Output { get; init; } = new();

    /// <summary>Writes <paramref name="batch"/> into a new collection.</summary>
    public PrometheusCollection Write(in Batch<Metric> batch)
    {
        // Metrics of two meters can share a family name; the format wants one HELP and TYPE per
        // family and its samples together, so group them, keeping the order they came in.
        Output.Clear();
        _familyOrder.Clear();
        _entries.Clear();
        _written.Clear();
        foreach (Metric metric in batch)
        {
            if (string.Equals(metric.MeterName, ExcludedMeterName, StringComparison.Ordinal))
            {
                continue;
            }

            PrometheusMetricFamily family = _families.GetValue(metric, PrometheusMetricFamily.Create);
            if (family.Type == PrometheusType.Unsupported)
            {
                continue;
            }

            if (!_familyOrder.TryGetValue(family.Name, out int group))
            {
                group = _familyOrder.Count;
                _familyOrder.Add(family.Name, group);
            }

            _entries.Add(new Entry(group, _entries.Count, family, metric));
        }

        _entries.Sort(s_byGroupThenArrival);
        PrometheusMetricFamily? header = null;
        int start = 0;
        foreach (Entry entry in _entries)
        {
            if (header is null || !string.Equals(header.Name, entry.Family.Name, StringComparison.Ordinal))
            {
                EndFamily(header, start);
                header = entry.Family;
                start = Output.Length;
                Output.WriteHeader(header.Name, header.Type, header.Help);
            }
            else if (entry.Family.Type != header.Type)
            {
                // Same name, another type: the text format cannot say that, so the first type wins.
                continue;
            }

            WriteSamples(entry.Family, entry.Metric);
        }

        EndFamily(header, start);
        return new PrometheusCollection(Output.ToArray(), [.. _written]);
    }

    private void EndFamily(PrometheusMetricFamily? family, int start)
    {
        if (family is not null)
        {
            _written.Add(new PrometheusCollection.Family(family.Name, family.SampleNames, start, Output.Length - start));
        }
    }

    private void WriteSamples(PrometheusMetricFamily family, Metric metric)
    {
        bool isLong = metric.MetricType.IsLong();
        bool isSum = metric.MetricType.IsSum();
        foreach (ref readonly MetricPoint point in metric.GetMetricPoints())
        {
            _tags.Clear();
            foreach (KeyValuePair<string, object?> tag in point.Tags)
            {
                _tags.Add(tag);
            }

            // Built per point and scrape: an OpenTelemetry point has no object to cache it on.
            // These are other meters' metrics; the registry's series keep theirs.
            LabelBlock labels = LabelBlock.Create(_labelScratch, family.ScopeLabels, _tags);
            if (family.Type != PrometheusType.Histogram)
            {
                if (isLong)
                {
                    Output.WriteSample(family.Name, string.Empty, labels, null, 0, isSum ? point.GetSumLong() : point.GetGaugeLastValueLong());
                }
                else
                {
                    Output.WriteSample(family.Name, string.Empty, labels, null, 0, isSum ? point.GetSumDouble() : point.GetGaugeLastValueDouble());
                }

                continue;
            }

            long cumulativeCount = 0;
            foreach (HistogramBucket bucket in point.GetHistogramBuckets())
            {
                cumulativeCount += bucket.BucketCount;
                Output.WriteSample(family.Name, "_bucket", labels, "le", bucket.ExplicitBound, cumulativeCount);
            }

            Output.WriteSample(family.Name, "_sum", labels, null, 0, point.GetHistogramSum());
            Output.WriteSample(family.Name, "_count", labels, null, 0, point.GetHistogramCount());
        }
    }

    private readonly record struct Entry(int Group, int Arrival, PrometheusMetricFamily Family, Metric Metric);
}
