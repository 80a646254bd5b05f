using System.Diagnostics.Metrics;
using SdmInstrument = System.Diagnostics.Metrics.Instrument;

namespace ScalableMetrics.Scaling.Implementations;

/// <summary>
/// <c>WORKLOAD-noop-listener</c>: the workload's <c>System.Diagnostics.Metrics</c> instrument with
/// a <see cref="MeterListener"/> whose measurement callback keeps nothing: what building the tags
/// and the runtime's dispatch to a listener cost, the floor under every listener (ours and
/// OpenTelemetry's).
/// </summary>
/// <remarks>So that the harness can still check that every measurement reached the listener, the
/// callback counts its calls in a <c>[ThreadStatic]</c> field (no shared write), which each worker
/// reads once after its loop. Neither the tags nor the value are looked at.</remarks>
internal sealed class TaggedNoopListener(TaggedWorkload workload) : TaggedImplementation(workload, "noop-listener")
{
#pragma warning disable IDE1006 // a [ThreadStatic] takes the t_ prefix, as in the runtime; the naming rules cannot tell
    [ThreadStatic]
    private static long t_measurements;
#pragma warning restore IDE1006

    private Meter? _meter;
    private MeterListener? _listener;
    private SdmInstrument? _instrument;
    private long[] _measurements = [];

    public override string Description => $"MeterListener whose callback keeps nothing (counts its calls per thread); {Recorded}";

    public override void Prepare(int threads)
    {
        Release();
        _measurements = new long[threads];
        _meter = new Meter(NewMeterName());
        Meter meter = _meter;
        _listener = new MeterListener
        {
            InstrumentPublished = (instrument, listener) =>
            {
                if (ReferenceEquals(instrument.Meter, meter))
                {
                    listener.EnableMeasurementEvents(instrument);
                }
            },
        };
        _listener.SetMeasurementEventCallback<double>(static (_, _, _, _) => t_measurements++);
        _listener.SetMeasurementEventCallback<long>(static (_, _, _, _) => t_measurements++);
        _listener.Start();
        _instrument = CreateInstrument(_meter);
    }

    public override long Run(int threadIndex, StopSignal stop)
    {
        t_measurements = 0;
        long records = RunInstrument(_instrument!, stop);
        _measurements[threadIndex] = t_measurements;
        return records;
    }

    public override long ReadTotal() => _measurements.Sum();

    protected override void Dispose(bool disposing)
    {
        if (disposing)
        {
            Release();
        }
    }

    private void Release()
    {
        _listener?.Dispose();
        _meter?.Dispose();
        _listener = null;
        _meter = null;
    }
}
