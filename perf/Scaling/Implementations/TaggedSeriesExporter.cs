using OpenTelemetry;
using OpenTelemetry.Metrics;

namespace ScalableMetrics.Scaling.Implementations;

/// <summary>
/// Keeps every metric point of one instrument from the last export, as <see cref="TaggedSeries"/>:
/// a histogram's count and sum, or a long counter's sum, by tags.
/// </summary>
internal sealed class TaggedSeriesExporter(string instrumentName) : BaseExporter<Metric>
{
    /// <summary>The instrument's points at the last export; empty before one.</summary>
    public IReadOnlyList<TaggedSeries> LastSeries { get; private set; } = [];

    public override ExportResult Export(in Batch<Metric> batch)
    {
        foreach (Metric metric in batch)
        {
            if (metric.Name != instrumentName)
            {
                continue;
            }

            bool histogram = metric.MetricType == MetricType.Histogram;
            var series = new List<TaggedSeries>();
            foreach (ref readonly MetricPoint point in metric.GetMetricPoints())
            {
                var tags = new List<KeyValuePair<string, object?>>();
                foreach (KeyValuePair<string, object?> tag in point.Tags)
                {
                    tags.Add(tag);
                }

                series.Add(histogram
                    ? new TaggedSeries(TaggedSeries.KeyOf(tags), point.GetHistogramCount(), point.GetHistogramSum())
                    : new TaggedSeries(TaggedSeries.KeyOf(tags), point.GetSumLong(), 0));
            }

            LastSeries = series;
        }

        return ExportResult.Success;
    }
}
