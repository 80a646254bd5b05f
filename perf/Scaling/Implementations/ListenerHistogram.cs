using System.Diagnostics.Metrics;
using Microsoft.Extensions.Logging.Abstractions;
using ScalableMetrics.Exporter.Listening;

namespace ScalableMetrics.Scaling.Implementations;

/// <summary>
/// <see cref="Histogram{T}.Record(T)"/> of a plain <c>System.Diagnostics.Metrics</c> histogram
/// with ScalableMetrics' <see cref="MeterListener"/> path listening (what <c>AddMeter</c> sets
/// up), recording the harness's cycle of values (<see cref="HistogramValues"/>) into a partitioned
/// histogram with the default boundaries, OpenTelemetry's.
/// </summary>
/// <remarks>Each point gets a new meter and listener host, so the histogram starts empty; the
/// total is the sum of the registry histogram's bucket counts, checked against the values
/// recorded (<see cref="HistogramCheck"/>).</remarks>
internal sealed class ListenerHistogram : CountingImplementation
{
    private const string InstrumentName = "scaling.records";

    private static int s_lastMeter;

    private Meter? _meter;
    private MeterListenerHost? _host;
    private Histogram<double>? _histogram;

    public override string Id => "listener-histogram";

    public override string Description => "System.Diagnostics.Metrics Histogram<double>.Record, ScalableMetrics MeterListener (AddMeter) listening, default boundaries";

    public override void Prepare(int threads)
    {
        Release();
        string meterName = $"ScalableMetrics.Scaling.Listened.Histogram.{Interlocked.Increment(ref s_lastMeter)}";
        _meter = new Meter(meterName);
        _host = new MeterListenerHost([meterName], "ScalableMetrics", () => new MetricRegistry(), NullLogger.Instance);
        _host.Start();
        _histogram = _meter.CreateHistogram<double>(InstrumentName, "ms");
        if (!Histogram().Boundaries.SequenceEqual(HistogramValues.DefaultBoundaries))
        {
            // The cycle puts one value in each default bucket; other boundaries would compare unlike work with OpenTelemetry's.
            throw new InvalidOperationException($"{Id}: the boundaries are [{string.Join(", ", Histogram().Boundaries)}], not OpenTelemetry's.");
        }
    }

    public override long Run(int threadIndex, StopSignal stop) => HotLoop.Run(new OpenTelemetryHistogram.Recorder(_histogram!, HistogramValues.Cycle), stop);

    public override long ReadTotal()
    {
        IReadOnlyList<HistogramReading> readings = Histogram().Collect();
        if (readings.Count != 1)
        {
            throw new InvalidOperationException($"{Id}: collected {readings.Count} series, expected the one untagged series.");
        }

        return HistogramCheck.Total(Id, readings[0].BucketCounts, readings[0].Sum);
    }

    protected override void Dispose(bool disposing)
    {
        if (disposing)
        {
            Release();
        }
    }

    private PartitionedHistogram Histogram() =>
        _host!.Scopes.Single().Registry.Instruments.OfType<PartitionedHistogram>().Single(i => i.Name == InstrumentName);

    private void Release()
    {
        _host?.Dispose();
        _meter?.Dispose();
        _host = null;
        _meter = null;
    }
}
