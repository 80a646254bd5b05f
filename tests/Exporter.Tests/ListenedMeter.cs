using System.Diagnostics.Metrics;
using Microsoft.Extensions.Logging.Abstractions;
using ScalableMetrics.Exporter.Listening;

namespace ScalableMetrics.Exporter.Tests;

/// <summary>A meter of a name no other test uses, and a started listener that takes it.</summary>
internal sealed class ListenedMeter : IDisposable
{
    public ListenedMeter(IEnumerable<KeyValuePair<string, object?>>? meterTags = null)
    {
        Name = "test.listened." + Guid.NewGuid().ToString("N");
        Meter = new Meter(Name, version: null, meterTags);
        Host = new MeterListenerHost([Name], "ScalableMetrics", () => new MetricRegistry(), NullLogger.Instance);
        Host.Start();
    }

    public string Name { get; }

    public Meter Meter { get; }

    public MeterListenerHost Host { get; }

    /// <summary>The registry instrument that the listener made for <paramref name="name"/>.</summary>
    public T Instrument<T>(string name)
        where T : Instrument =>
        Host.Scopes.Single(s => s.MeterName == Name).Registry.Instruments.OfType<T>().Single(i => i.Name == name);

    public void Dispose()
    {
        Host.Dispose();
        Meter.Dispose();
    }
}
