using System.Runtime.CompilerServices;
using OpenTelemetry;
using OpenTelemetry.Metrics;
using ScalableMetrics.Exporter.Prometheus.Exposition;
using ScalableMetrics.Exporter.Prometheus.Sources;
using ScalableMetrics.Naming;

namespace ScalableMetrics.Exporter.OpenTelemetry;

/// <summary>
/// Writes a batch of OpenTelemetry metrics straight into the scrape's writer, in the format the
/// scrape asks for (<see cref="ExpositionWriter"/>): per family its header and its samples,
/// without timestamps (Prometheus stamps them with the scrape's time); in OpenMetrics each
/// point's start time as its <c>_created</c>, since the reader's collection, not the scrape,
/// decides when a batch is written; in protobuf exponential histograms as native histograms.
/// Not thread-safe: a reader exports one collection at a time.
/// </summary>
/// <remarks>
/// <para>A family is checked against every name it reserves (<see cref="ExportedFamily.ReservedNames"/>:
/// its OpenMetrics family name, its sample names and <c>_created</c>), as the registry's source
/// checks its own, in every format alike: one whose names the scrape already took (the registry's,
/// or another meter's written before it) is left out, and so is a metric of another kind under a
/// family name already written, and a second metric of one scope in a family (<c>jobs.done</c> and
/// <c>jobs_done</c> of one meter, whose series would carry the same labels: the listened meters'
/// second instrument of one meter is left out so too); each is reported to the caller, so that what
/// the scrape shows is never two families, or two samples of one series, Prometheus would store as one.</para>
/// <para>OpenTelemetry .NET's exponential histogram point has no public negative buckets: a
/// negative value shows in its count and sum only.</para>
/// </remarks>
internal sealed class PrometheusSerializer
{
    private static readonly Comparer<Entry> s_byGroupThenArrival =
        Comparer<Entry>.Create(static (a, b) => a.Group != b.Group ? a.Group.CompareTo(b.Group) : a.Arrival.CompareTo(b.Arrival));

    private readonly ConditionalWeakTable<Metric, ExposedMetric?> _exposed = [];
    private readonly Dictionary<string, int> _familyOrder = new(StringComparer.Ordinal);
    private readonly List<Entry> _entries = [];
    private readonly List<KeyValuePair<string, object?>> _tags = [];
    private readonly PrometheusTextWriter _labelScratch = new();
    private readonly List<double> _boundaries = [];
    private readonly List<long> _bucketCounts = [];

    // The scope labels of each metric written in the family being written.
    private readonly List<KeyValuePair<string, string>[]> _writtenScopes = [];

    /// <summary>The metrics of this meter are left out: the registry's, written from the registry itself.</summary>
    public string? ExcludedMeterName { get; init; }

    /// <summary>
    /// Writes <paramref name="batch"/> into <paramref name="output"/>, leaving out each family
    /// whose names are in <paramref name="takenNames"/> (passed to <paramref name="onTaken"/>) and
    /// adding the names of those it writes.
    /// </summary>
    /// <param name="batch">The collected metrics.</param>
    /// <param name="output">The scrape's writer, in the scrape's format.</param>
    /// <param name="takenNames">The names the scrape has written so far.</param>
    /// <param name="onTaken">Told the family name of each family left out, and of each metric left
    /// out of a family written (another kind, or a second metric of one scope).</param>
    public void Write(in Batch<Metric> batch, ExpositionWriter output, HashSet<string> takenNames, Action<string> onTaken)
    {
        // Metrics of two meters can share a family name; the format wants one HELP and TYPE per
        // family and its samples together, so group them, keeping the order they came in. Grouped
        // by the OpenMetrics family name, not the text format's: a gauge foo and a counter foo
        // (text foo_total) are one OpenMetrics family foo, which must not have two types.
        _familyOrder.Clear();
        _entries.Clear();
        foreach (Metric metric in batch)
        {
            if (string.Equals(metric.MeterName, ExcludedMeterName, StringComparison.Ordinal))
            {
                continue;
            }

            // Every type OpenTelemetry 1.x has is carried; only a type of a later version is not.
            if (_exposed.GetValue(metric, ExposedMetric.Create) is not { } exposed)
            {
                continue;
            }

            if (!_familyOrder.TryGetValue(exposed.Family.Name, out int group))
            {
                group = _familyOrder.Count;
                _familyOrder.Add(exposed.Family.Name, group);
            }

            _entries.Add(new Entry(group, _entries.Count, exposed, metric));
        }

        _entries.Sort(s_byGroupThenArrival);
        WriteEntries(output, takenNames, onTaken);
    }

    private void WriteEntries(ExpositionWriter output, HashSet<string> takenNames, Action<string> onTaken)
    {
        ExposedMetric? header = null;
        bool leftOut = false;
        foreach (Entry entry in _entries)
        {
            ExportedFamily family = entry.Exposed.Family;
            if (header is null || !string.Equals(header.Family.Name, family.Name, StringComparison.Ordinal))
            {
                header = entry.Exposed;
                _writtenScopes.Clear();

                // Every name the family reserves, whatever the format: the registry's source
                // checks its families so, and a name free in one format but not in another would
                // make what a scrape shows depend on the format asked for.
                leftOut = TakenNames.AnyOf(family.ReservedNames, takenNames);
                if (leftOut)
                {
                    onTaken(family.TextName);
                    continue;
                }

                TakenNames.Take(family.ReservedNames, takenNames);
                if (!output.Includes(family.ReservedNames))
                {
                    // Not asked for (name[]=): left out with its family, reserved all the same.
                    leftOut = true;
                    continue;
                }

                output.WriteHeader(family.TextName, family.Kind, header.Help, family.Unit);
            }
            else if (family.Kind != header.Family.Kind)
            {
                // The same family name, another kind: a family has one type, so the first wins,
                // and this one is reported as a family taken (whether or not the first was written).
                onTaken(family.TextName);
                continue;
            }
            else if (leftOut)
            {
                // Left out with its family.
                continue;
            }
            else if (IsScopeWritten(entry.Exposed.ScopeLabels))
            {
                // A second metric of one scope in the family (names that meet only once sanitized,
                // jobs.done and jobs_done): its series would carry the labels of the first's, so a
                // tag set both have would be one series written twice. The first wins, as the
                // listened meters' first instrument does (RegistrySource.WriteMerged).
                onTaken(family.TextName);
                continue;
            }

            _writtenScopes.Add(entry.Exposed.ScopeLabels);
            WriteSamples(output, entry.Exposed, entry.Metric);
        }
    }

    // Whether a metric of the family being written has these scope labels (compared by value:
    // each metric has its own array; ScopeLabels leaves out empty values, so equal arrays are
    // exactly equal labels on a sample).
    private bool IsScopeWritten(KeyValuePair<string, string>[] scope)
    {
        foreach (KeyValuePair<string, string>[] written in _writtenScopes)
        {
            if (written.Length != scope.Length)
            {
                continue;
            }

            int i = 0;
            while (i < scope.Length
                && string.Equals(written[i].Key, scope[i].Key, StringComparison.Ordinal)
                && string.Equals(written[i].Value, scope[i].Value, StringComparison.Ordinal))
            {
                i++;
            }

            if (i == scope.Length)
            {
                return true;
            }
        }

        return false;
    }

    private void WriteSamples(ExpositionWriter output, ExposedMetric exposed, Metric metric)
    {
        ExportedFamily family = exposed.Family;
        string name = family.TextName;
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
            LabelBlock labels = LabelBlock.Create(_labelScratch, exposed.ScopeLabels, _tags);
            if (family.Kind != ExportedKind.Histogram)
            {
                if (isLong)
                {
                    output.WriteSample(name, string.Empty, labels, null, 0, isSum ? point.GetSumLong() : point.GetGaugeLastValueLong());
                }
                else
                {
                    output.WriteSample(name, string.Empty, labels, null, 0, isSum ? point.GetSumDouble() : point.GetGaugeLastValueDouble());
                }

                output.WriteCreated(name, family.Kind, labels, point.StartTime);

                continue;
            }

            if (metric.MetricType == MetricType.ExponentialHistogram)
            {
                output.WriteExponentialHistogram(name, labels, ExponentialReading(point), point.StartTime);
                continue;
            }

            // OpenTelemetry's buckets end with the +Inf one, which the writer adds itself.
            _boundaries.Clear();
            _bucketCounts.Clear();
            foreach (HistogramBucket bucket in point.GetHistogramBuckets())
            {
                if (!double.IsPositiveInfinity(bucket.ExplicitBound))
                {
                    _boundaries.Add(bucket.ExplicitBound);
                }

                _bucketCounts.Add(bucket.BucketCount);
            }

            output.WriteHistogram(name, labels, _boundaries, _bucketCounts, point.GetHistogramSum(), point.StartTime);
        }
    }

    private static ExponentialHistogramReading ExponentialReading(in MetricPoint point)
    {
        ExponentialHistogramData data = point.GetExponentialHistogramData();
        var counts = new List<long>();
        foreach (long count in data.PositiveBuckets)
        {
            counts.Add(count);
        }

        // OpenTelemetry .NET counts only exact zeros in its zero bucket.
        return ExponentialHistogramReading.Of(TagSet.Empty, data.Scale, 0, data.ZeroCount, data.PositiveBuckets.Offset, [.. counts], point.GetHistogramSum());
    }

    private readonly record struct Entry(int Group, int Arrival, ExposedMetric Exposed, Metric Metric);
}
