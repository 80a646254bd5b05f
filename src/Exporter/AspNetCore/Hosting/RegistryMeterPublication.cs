using System.Diagnostics.Metrics;
using ScalableMetrics.Publishing;

namespace ScalableMetrics.Exporter.Hosting;

/// <summary>
/// The host's publication of the registry's instruments to <see cref="MeterListener"/>s
/// (<see cref="ScalableMetricsOptions.PublishToMeterListeners"/>): started with the host, where it is
/// on and no feature publishes the registry's meter itself; disposed with the container.
/// </summary>
/// <remarks>Thread-safe: started once.</remarks>
internal sealed class RegistryMeterPublication(MetricRegistry registry, IOptions<ScalableMetricsOptions> options, IMeterFactory? meterFactory = null) : IDisposable
{
    private readonly Lock _lock = new();
    private RegistryMeterPublisher? _publisher;
    private bool _disposed;

    /// <summary>The publisher once started; null where publication is off.</summary>
    public RegistryMeterPublisher? Publisher => _publisher;

    /// <summary>Publishes the registry's instruments, once, unless the options turn it off or a feature publishes them.</summary>
    public void Start()
    {
        ScalableMetricsOptions value = options.Value;
        if (!value.PublishToMeterListeners || value.GetFeatures().Any(static f => f.PublishesRegistryMeter))
        {
            return;
        }

        lock (_lock)
        {
            if (_publisher is null && !_disposed)
            {
                _publisher = new RegistryMeterPublisher(registry, value.MeterName, value.MeterVersion, meterFactory);
            }
        }
    }

    public void Dispose()
    {
        lock (_lock)
        {
            _disposed = true;
            _publisher?.Dispose();
        }
    }
}
