using System.Diagnostics.Metrics;
using Microsoft.Extensions.Logging.Abstractions;
using ScalableMetrics.Exporter.Listening;
using SdmInstrument = System.Diagnostics.Metrics.Instrument;

namespace ScalableMetrics.Scaling.Implementations;

/// <summary>
/// <c>WORKLOAD-addmeter</c>: the workload's <c>System.Diagnostics.Metrics</c> instrument taken by
/// ScalableMetrics' <see cref="MeterListener"/> path (what <c>AddMeter</c> sets up), each
/// measurement looked up by its tags in the registry instrument the listener made.
/// </summary>
/// <remarks>Each point gets a new meter and listener host, so every series starts at 0; the
/// series are read with the registry instrument's <c>Collect()</c>, as the exposition reads them.</remarks>
internal sealed class TaggedAddMeter(TaggedWorkload workload) : TaggedImplementation(workload, "addmeter")
{
    private Meter? _meter;
    private MeterListenerHost? _host;
    private SdmInstrument? _instrument;

    public override string Description => $"ScalableMetrics AddMeter (MeterListener) listening; {Recorded}";

    public override void Prepare(int threads)
    {
        Release();
        string meterName = NewMeterName();
        _meter = new Meter(meterName);
        _host = new MeterListenerHost([meterName], "ScalableMetrics", () => new MetricRegistry(), NullLogger.Instance);
        _host.Start();
        _instrument = CreateInstrument(_meter);
        if (Workload.IsHistogram && !Histogram().Boundaries.SequenceEqual(RequestDurations.Boundaries))
        {
            throw new InvalidOperationException($"{Id}: the listener's histogram has the boundaries [{string.Join(", ", Histogram().Boundaries)}], not the advised ones.");
        }
    }

    public override long Run(int threadIndex, StopSignal stop) => RunInstrument(_instrument!, stop);

    public override long ReadTotal()
    {
        MetricRegistry registry = _host!.Scopes.Single().Registry;
        List<TaggedSeries> series = Workload.IsHistogram
            ? [.. Histogram().Collect().Select(static r => new TaggedSeries(TaggedSeries.KeyOf(r.Tags), r.Count, r.Sum))]
            : [.. registry.Instruments.OfType<PartitionedCounter>().Single().Collect().Select(static r => new TaggedSeries(TaggedSeries.KeyOf(r.Tags), r.Value, 0))];
        return TaggedCheck.Total(Id, Workload, series);
    }

    protected override void Dispose(bool disposing)
    {
        if (disposing)
        {
            Release();
        }
    }

    private PartitionedHistogram Histogram() =>
        _host!.Scopes.Single().Registry.Instruments.OfType<PartitionedHistogram>().Single(static i => i.Name == TaggedWorkload.HistogramName);

    private void Release()
    {
        _host?.Dispose();
        _meter?.Dispose();
        _host = null;
        _meter = null;
    }
}
