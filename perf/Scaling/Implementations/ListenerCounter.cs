using System.Diagnostics.Metrics;
using Microsoft.Extensions.Logging.Abstractions;
using ScalableMetrics.Exporter.Listening;

namespace ScalableMetrics.Scaling.Implementations;

/// <summary>
/// <see cref="Counter{T}.Add(T)"/> of a plain <c>System.Diagnostics.Metrics</c> counter with
/// ScalableMetrics' <see cref="MeterListener"/> path listening (what <c>AddMeter</c> sets up):
/// each add goes through the listener into a partitioned series of the registry instrument it made.
/// </summary>
/// <remarks>Each point gets a new meter and listener host, so the series starts at 0; the total
/// is the sum of the registry counter's <see cref="PartitionedCounter.Collect"/>, as the
/// exposition reads it.</remarks>
internal sealed class ListenerCounter : CountingImplementation
{
    private const string InstrumentName = "scaling.adds";

    private static int s_lastMeter;

    private Meter? _meter;
    private MeterListenerHost? _host;
    private Counter<long>? _counter;

    public override string Id => "listener-counter";

    public override string Description => "System.Diagnostics.Metrics Counter<long>.Add(1), ScalableMetrics MeterListener (AddMeter) listening";

    public override void Prepare(int threads)
    {
        Release();
        string meterName = $"ScalableMetrics.Scaling.Listened.{Interlocked.Increment(ref s_lastMeter)}";
        _meter = new Meter(meterName);
        _host = new MeterListenerHost([meterName], "ScalableMetrics", () => new MetricRegistry(), NullLogger.Instance);
        _host.Start();
        _counter = _meter.CreateCounter<long>(InstrumentName, "{add}");
    }

    public override long Run(int threadIndex, StopSignal stop) => HotLoop.Run(new OpenTelemetryCounter.Adder(_counter!), stop);

    public override long ReadTotal()
    {
        PartitionedCounter counter = _host!.Scopes.Single().Registry.Instruments.OfType<PartitionedCounter>().Single(i => i.Name == InstrumentName);
        return counter.Collect().Sum(r => r.Value);
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
        _host?.Dispose();
        _meter?.Dispose();
        _host = null;
        _meter = null;
    }
}
