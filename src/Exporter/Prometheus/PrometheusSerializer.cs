using System.Collections;
using System.Runtime.CompilerServices;
using System.Text.Json;
using OpenTelemetry;
using OpenTelemetry.Metrics;

namespace ScalableMetrics.Exporter.Prometheus;

/// <summary>
/// Writes a batch of OpenTelemetry metrics in the Prometheus text exposition format 0.0.4:
/// per family a <c># HELP</c> line (when there is a description), a <c># TYPE</c> line and
/// its samples, without timestamps (Prometheus stamps them with the scrape's time).
/// Not thread-safe: the exporter serializes scrapes.
/// </summary>
internal sealed class PrometheusSerializer
{
    private static readonly Comparer<KeyValuePair<string, object?>> s_byKey =
        Comparer<KeyValuePair<string, object?>>.Create(static (a, b) => string.CompareOrdinal(a.Key, b.Key));

    private static readonly Comparer<Entry> s_byGroupThenArrival =
        Comparer<Entry>.Create(static (a, b) => a.Group != b.Group ? a.Group.CompareTo(b.Group) : a.Arrival.CompareTo(b.Arrival));

    private readonly ConditionalWeakTable<Metric, PrometheusMetricFamily> _families = [];
    private readonly Dictionary<string, int> _familyOrder = new(StringComparer.Ordinal);
    private readonly List<Entry> _entries = [];
    private readonly List<KeyValuePair<string, object?>> _labels = [];

    public PrometheusTextWriter Output { get; } = new();

    /// <summary>Appends <paramref name="batch"/> to <see cref="Output"/>.</summary>
    public void Write(in Batch<Metric> batch)
    {
        // Metrics of two meters can share a family name; the format wants one HELP and TYPE per
        // family and its samples together, so group them, keeping the order they came in.
        _familyOrder.Clear();
        _entries.Clear();
        foreach (Metric metric in batch)
        {
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
        foreach (Entry entry in _entries)
        {
            if (header is null || !string.Equals(header.Name, entry.Family.Name, StringComparison.Ordinal))
            {
                header = entry.Family;
                WriteHeader(header);
            }
            else if (entry.Family.Type != header.Type)
            {
                // Same name, another type: the text format cannot say that, so the first type wins.
                continue;
            }

            WriteSamples(entry.Family, entry.Metric);
        }
    }

    private void WriteHeader(PrometheusMetricFamily family)
    {
        if (family.Help is not null)
        {
            Output.Write("# HELP ");
            Output.Write(family.Name);
            Output.Write((byte)' ');
            Output.WriteHelp(family.Help);
            Output.Write((byte)'\n');
        }

        Output.Write("# TYPE ");
        Output.Write(family.Name);
        Output.Write(family.Type switch
        {
            PrometheusType.Counter => " counter\n",
            PrometheusType.Gauge => " gauge\n",
            _ => " histogram\n",
        });
    }

    private void WriteSamples(PrometheusMetricFamily family, Metric metric)
    {
        bool isLong = metric.MetricType.IsLong();
        bool isSum = metric.MetricType.IsSum();
        foreach (ref readonly MetricPoint point in metric.GetMetricPoints())
        {
            if (family.Type != PrometheusType.Histogram)
            {
                Output.Write(family.Name);
                WriteLabels(family, point.Tags, le: null);
                Output.Write((byte)' ');
                if (isLong)
                {
                    Output.Write(isSum ? point.GetSumLong() : point.GetGaugeLastValueLong());
                }
                else
                {
                    Output.Write(isSum ? point.GetSumDouble() : point.GetGaugeLastValueDouble());
                }

                Output.Write((byte)'\n');
                continue;
            }

            long cumulativeCount = 0;
            foreach (HistogramBucket bucket in point.GetHistogramBuckets())
            {
                cumulativeCount += bucket.BucketCount;
                WriteSample(family, "_bucket", point.Tags, bucket.ExplicitBound, cumulativeCount);
            }

            Output.Write(family.Name);
            Output.Write("_sum");
            WriteLabels(family, point.Tags, le: null);
            Output.Write((byte)' ');
            Output.Write(point.GetHistogramSum());
            Output.Write((byte)'\n');
            WriteSample(family, "_count", point.Tags, le: null, point.GetHistogramCount());
        }
    }

    private void WriteSample(PrometheusMetricFamily family, string suffix, ReadOnlyTagCollection tags, double? le, long value)
    {
        Output.Write(family.Name);
        Output.Write(suffix);
        WriteLabels(family, tags, le);
        Output.Write((byte)' ');
        Output.Write(value);
        Output.Write((byte)'\n');
    }

    private void WriteLabels(PrometheusMetricFamily family, ReadOnlyTagCollection tags, double? le)
    {
        _labels.Clear();
        _labels.AddRange(family.ScopeLabels);
        int scopeCount = _labels.Count;
        foreach (KeyValuePair<string, object?> tag in tags)
        {
            _labels.Add(tag);
        }

        // Keys that sanitize to the same label name are merged into one label, their values
        // joined by ';' in the order of the original keys, as the compatibility spec asks.
        _labels.Sort(scopeCount, _labels.Count - scopeCount, s_byKey);
        for (int i = scopeCount; i < _labels.Count; i++)
        {
            _labels[i] = new(PrometheusNames.SanitizeLabelName(_labels[i].Key), _labels[i].Value);
        }

        Output.Write((byte)'{');
        bool first = true;
        for (int i = 0; i < _labels.Count; i++)
        {
            string name = _labels[i].Key;
            if (IsNamedBefore(name, i))
            {
                continue;
            }

            if (!first)
            {
                Output.Write((byte)',');
            }

            first = false;
            Output.Write(name);
            Output.Write("=\"");
            WriteLabelValue(_labels[i].Value);
            for (int j = i + 1; j < _labels.Count; j++)
            {
                if (string.Equals(_labels[j].Key, name, StringComparison.Ordinal))
                {
                    Output.Write((byte)';');
                    WriteLabelValue(_labels[j].Value);
                }
            }

            Output.Write((byte)'"');
        }

        if (le is double bound)
        {
            Output.Write(first ? "le=\"" : ",le=\"");
            Output.Write(bound);
            Output.Write((byte)'"');
        }

        Output.Write((byte)'}');
    }

    private bool IsNamedBefore(string name, int index)
    {
        for (int i = 0; i < index; i++)
        {
            if (string.Equals(_labels[i].Key, name, StringComparison.Ordinal))
            {
                return true;
            }
        }

        return false;
    }

    private void WriteLabelValue(object? value)
    {
        switch (value)
        {
            case null:
                break;
            case string text:
                Output.WriteLabelValue(text);
                break;
            case bool flag:
                Output.Write(flag ? "true" : "false");
                break;
            case double number:
                Output.Write(number);
                break;
            case float number:
                Output.Write((double)number);
                break;
            case IUtf8SpanFormattable formattable:
                Output.Write(formattable);
                break;
            case IEnumerable sequence:
                // Array attributes are JSON arrays in the compatibility spec.
                Output.WriteLabelValue(JsonSerializer.Serialize(sequence.Cast<object?>()));
                break;
            default:
                Output.WriteLabelValue(Convert.ToString(value, System.Globalization.CultureInfo.InvariantCulture) ?? string.Empty);
                break;
        }
    }

    private readonly record struct Entry(int Group, int Arrival, PrometheusMetricFamily Family, Metric Metric);
}
