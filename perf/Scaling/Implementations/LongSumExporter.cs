using OpenTelemetry;
using OpenTelemetry.Metrics;

namespace ScalableMetrics.Scaling.Implementations;

/// <summary>
/// Keeps the sum of one long counter from the last export, so the harness can check the
/// OpenTelemetry total exactly (OpenTelemetry.Exporter.InMemory is not available to us).
/// </summary>
internal sealed class LongSumExporter(string instrumentName) : BaseExporter<Metric>
{
    /// <summary>The instrument's sum over every metric point at the last export, or -1 before one.</summary>
    public long LastSum { get; private set; } = -1;

    public override ExportResult Export(in Batch<Metric> batch)
    {
        foreach (Metric metric in batch)
        {
            if (metric.Name != instrumentName)
            {
                continue;
            }

            long sum = 0;
            foreach (ref readonly MetricPoint point in metric.GetMetricPoints())
            {
                sum += point.GetSumLong();
            }

            LastSum = sum;
        }

        return ExportResult.Success;
    }
}
