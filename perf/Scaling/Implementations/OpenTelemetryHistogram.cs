using System.Diagnostics.Metrics;
using OpenTelemetry;
using OpenTelemetry.Metrics;

namespace ScalableMetrics.Scaling.Implementations;

/// <summary>
/// <see cref="Histogram{T}.Record(T)"/> of <c>System.Diagnostics.Metrics</c> with an
/// OpenTelemetry <see cref="MeterProvider"/> listening and its default explicit buckets: what an
/// application that times work the usual way pays per record.
/// </summary>
/// <remarks>Each point gets a new meter and provider, so the cumulative histogram starts empty; it
/// is pulled with <see cref="MetricReader.Collect"/> through a <see cref="HistogramExporter"/>, and
/// its count is the sum of its bucket counts (<see cref="HistogramCheck"/>). The instrument's name
/// and unit are none of those for which OpenTelemetry picks other default boundaries (its
/// <c>http.*.duration</c> instruments in seconds).</remarks>
internal sealed class OpenTelemetryHistogram : CountingImplementation
{
    private const string InstrumentName = "scaling.records";

    private static int s_lastMeter;

    private Meter? _meter;
    private MeterProvider? _provider;
    private BaseExportingMetricReader? _reader;
    private HistogramExporter? _exporter;
    private Histogram<double>? _histogram;

    public override string Id => "histogram-opentelemetry";

    public override string Description => "System.Diagnostics.Metrics Histogram<double>.Record, OpenTelemetry MeterProvider listening, default explicit buckets";

    public override void Prepare(int threads)
    {
        Release();
        string meterName = $"ScalableMetrics.Scaling.Histogram.{Interlocked.Increment(ref s_lastMeter)}";
        _meter = new Meter(meterName);
        _histogram = _meter.CreateHistogram<double>(InstrumentName, "ms");
        _exporter = new HistogramExporter(InstrumentName);
        _reader = new BaseExportingMetricReader(_exporter);
        _provider = Sdk.CreateMeterProviderBuilder().AddMeter(meterName).AddReader(_reader).Build();
    }

    public override long Run(int threadIndex, StopSignal stop) => HotLoop.Run(new Recorder(_histogram!, HistogramValues.Cycle), stop);

    public override long ReadTotal()
    {
        if (!_reader!.Collect())
        {
            throw new InvalidOperationException("The OpenTelemetry reader failed to collect.");
        }

        return HistogramCheck.Total(Id, _exporter!.LastBucketCounts, _exporter.LastSum);
    }

    protected override void Dispose(bool disposing)
    {
        if (disposing)
        {
            Release();
        }
    }

    private void Release()
    {
        // The provider owns the reader, and the reader the exporter.
        _provider?.Dispose();
        _meter?.Dispose();
        _provider = null;
        _meter = null;
    }

    /// <summary>Records the next value of the cycle; mutable, so the loop's copy keeps its place.</summary>
    internal struct Recorder(Histogram<double> histogram, double[] cycle) : IAdder
    {
        private int _next;

        public void Add() => histogram.Record(HistogramValues.At(cycle, _next++));
    }
}
