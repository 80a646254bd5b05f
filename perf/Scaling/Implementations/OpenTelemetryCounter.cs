using System.Diagnostics.Metrics;
using OpenTelemetry;
using OpenTelemetry.Metrics;

namespace ScalableMetrics.Scaling.Implementations;

/// <summary>
/// <see cref="Counter{T}.Add(T)"/> of <c>System.Diagnostics.Metrics</c> with an OpenTelemetry
/// <see cref="MeterProvider"/> listening: what an application instrumented the usual way pays.
/// </summary>
/// <remarks>Each point gets a new meter and provider, so the cumulative sum starts at 0; the total
/// is pulled with <see cref="MetricReader.Collect"/> through a <see cref="LongSumExporter"/>.</remarks>
internal sealed class OpenTelemetryCounter : CountingImplementation
{
    private const string InstrumentName = "scaling.adds";

    private static int s_lastMeter;

    private Meter? _meter;
    private MeterProvider? _provider;
    private BaseExportingMetricReader? _reader;
    private LongSumExporter? _exporter;
    private Counter<long>? _counter;

    public override string Id => "opentelemetry";

    public override string Description => "System.Diagnostics.Metrics Counter<long>.Add(1), OpenTelemetry MeterProvider listening";

    public override void Prepare(int threads)
    {
        Release();
        string meterName = $"ScalableMetrics.Scaling.{Interlocked.Increment(ref s_lastMeter)}";
        _meter = new Meter(meterName);
        _counter = _meter.CreateCounter<long>(InstrumentName, "{add}");
        _exporter = new LongSumExporter(InstrumentName);
        _reader = new BaseExportingMetricReader(_exporter);
        _provider = Sdk.CreateMeterProviderBuilder().AddMeter(meterName).AddReader(_reader).Build();
    }

    public override long Run(int threadIndex, StopSignal stop) => HotLoop.Run(new Adder(_counter!), stop);

    public override long ReadTotal()
    {
        if (!_reader!.Collect())
        {
            throw new InvalidOperationException("The OpenTelemetry reader failed to collect.");
        }

        return _exporter!.LastSum;
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

    internal readonly struct Adder(Counter<long> counter) : IAdder
    {
        public void Add() => counter.Add(1);
    }
}
