using System.Diagnostics.Metrics;
using OpenTelemetry;
using OpenTelemetry.Metrics;
using SdmInstrument = System.Diagnostics.Metrics.Instrument;

namespace ScalableMetrics.Scaling.Implementations;

/// <summary>
/// <c>WORKLOAD-opentelemetry</c>: the workload's <c>System.Diagnostics.Metrics</c> instrument with
/// an OpenTelemetry <see cref="MeterProvider"/> listening (the histogram with the advised
/// boundaries, which OpenTelemetry honours).
/// </summary>
/// <remarks>Each point gets a new meter and provider, so every metric point starts at 0; they are
/// pulled with <see cref="MetricReader.Collect"/> through a <see cref="TaggedSeriesExporter"/>.</remarks>
internal sealed class TaggedOpenTelemetry(TaggedWorkload workload) : TaggedImplementation(workload, "opentelemetry")
{
    private Meter? _meter;
    private MeterProvider? _provider;
    private BaseExportingMetricReader? _reader;
    private TaggedSeriesExporter? _exporter;
    private SdmInstrument? _instrument;

    public override string Description => $"OpenTelemetry MeterProvider listening; {Recorded}";

    public override void Prepare(int threads)
    {
        Release();
        string meterName = NewMeterName();
        _meter = new Meter(meterName);
        _instrument = CreateInstrument(_meter);
        _exporter = new TaggedSeriesExporter(_instrument.Name);
        _reader = new BaseExportingMetricReader(_exporter);
        _provider = Sdk.CreateMeterProviderBuilder().AddMeter(meterName).AddReader(_reader).Build();
    }

    public override long Run(int threadIndex, StopSignal stop) => RunInstrument(_instrument!, stop);

    public override long ReadTotal()
    {
        if (!_reader!.Collect())
        {
            throw new InvalidOperationException("The OpenTelemetry reader failed to collect.");
        }

        return TaggedCheck.Total(Id, Workload, [.. _exporter!.LastSeries]);
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
}
