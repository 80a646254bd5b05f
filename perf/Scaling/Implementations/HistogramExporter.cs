using OpenTelemetry;
using OpenTelemetry.Metrics;

namespace ScalableMetrics.Scaling.Implementations;

/// <summary>
/// Keeps the bucket counts and the sum of one histogram from the last export, over every metric
/// point, so the harness can check the OpenTelemetry histogram exactly (OpenTelemetry.Exporter.InMemory
/// is not available to us).
/// </summary>
internal sealed class HistogramExporter(string instrumentName) : BaseExporter<Metric>
{
    /// <summary>The per-bucket counts (not cumulative, the last bucket above every boundary) at the last export; empty before one.</summary>
    public IReadOnlyList<long> LastBucketCounts { get; private set; } = [];

    /// <summary>The sum of every recorded value at the last export.</summary>
    public double LastSum { get; private set; }

    public override ExportResult Export(in Batch<Metric> batch)
    {
        foreach (Metric metric in batch)
        {
            if (metric.Name != instrumentName)
            {
                continue;
            }

            var counts = new List<long>();
            double sum = 0;
            foreach (ref readonly MetricPoint point in metric.GetMetricPoints())
            {
                sum += point.GetHistogramSum();
                int bucket = 0;
                foreach (HistogramBucket histogramBucket in point.GetHistogramBuckets())
                {
                    if (bucket == counts.Count)
                    {
                        counts.Add(0);
                    }

                    counts[bucket++] += histogramBucket.BucketCount;
                }
            }

            LastBucketCounts = counts;
            LastSum = sum;
        }

        return ExportResult.Success;
    }
}
