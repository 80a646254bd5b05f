using System.Diagnostics.Metrics;

namespace ScalableMetrics.Exporter;

/// <summary>
/// Publishes every instrument of a <see cref="MetricRegistry"/>, those created before the bridge
/// and those created after it, as observable instruments of a <see cref="System.Diagnostics.Metrics.Meter"/>,
/// so that any <see cref="MeterListener"/> (an OpenTelemetry <c>MeterProvider</c> among them)
/// reads the partitioned sums when it collects.
/// </summary>
/// <remarks>
/// <para>A <see cref="PartitionedCounter"/> becomes an <see cref="ObservableCounter{T}"/> of
/// <see cref="long"/> with the same name, unit and description. An <see cref="OperationData"/>
/// named <c>x</c> becomes two: <c>x</c>, an <see cref="ObservableCounter{T}"/> of <see cref="double"/>
/// in seconds (the total elapsed time), and <c>x.count</c>, an <see cref="ObservableCounter{T}"/>
/// of <see cref="long"/> in <c>{operation}</c>. Each series is one measurement with the series' tags.</para>
/// <para>The partitions are summed only when a listener collects; recording stays as cheap as
/// without the bridge. An operation's two instruments are read one after the other, so a
/// collection made while it is being recorded may see one more operation in one than the other.
/// Thread-safe.</para>
/// <para>The count's name is <see cref="OperationData.CountName"/>, which the registry reserves.</para>
/// </remarks>
public sealed class MeterBridge : IDisposable
{
    /// <summary>The name of the meter when none is given: <c>ScalableMetrics</c>.</summary>
    public const string DefaultMeterName = "ScalableMetrics";

    /// <summary>The unit of the instrument that counts an <see cref="OperationData"/>'s operations.</summary>
    public const string OperationCountUnit = "{operation}";

    private readonly Meter _meter;
    private readonly IDisposable _subscription;

    /// <summary>Starts publishing <paramref name="registry"/> on a meter named <see cref="DefaultMeterName"/>.</summary>
    /// <param name="registry">The registry to publish.</param>
    /// <exception cref="ArgumentNullException"><paramref name="registry"/> is null.</exception>
    public MeterBridge(MetricRegistry registry)
        : this(registry, DefaultMeterName)
    {
    }

    /// <summary>Starts publishing <paramref name="registry"/> on a meter named <paramref name="meterName"/>.</summary>
    /// <param name="registry">The registry to publish.</param>
    /// <param name="meterName">The meter's name: what an OpenTelemetry <c>MeterProvider</c> must <c>AddMeter</c>.</param>
    /// <param name="meterVersion">The meter's version, or <see langword="null"/> for none.</param>
    /// <exception cref="ArgumentNullException"><paramref name="registry"/> or <paramref name="meterName"/> is null.</exception>
    /// <exception cref="ArgumentException"><paramref name="meterName"/> is empty or white space.</exception>
    public MeterBridge(MetricRegistry registry, string meterName, string? meterVersion = null)
    {
        ArgumentNullException.ThrowIfNull(registry);
        ArgumentException.ThrowIfNullOrWhiteSpace(meterName);
        _meter = new Meter(meterName, meterVersion);
        _subscription = registry.ObserveInstruments(Publish);
    }

    /// <summary>The name of the meter the instruments are published on.</summary>
    public string MeterName => _meter.Name;

    /// <summary>The version of the meter, or <see langword="null"/>.</summary>
    public string? MeterVersion => _meter.Version;

    /// <summary>Stops publishing: instruments created from now on are not published, and the meter
    /// is disposed, which ends every listener's measurements of it.</summary>
    public void Dispose()
    {
        // Unsubscribe first: once it returns the registry will not call Publish on a disposed meter.
        _subscription.Dispose();
        _meter.Dispose();
    }

    // Called under the registry's lock: creating the meter's instruments here is fine, creating
    // registry instruments is not.
    private void Publish(Instrument instrument)
    {
        switch (instrument)
        {
            case PartitionedCounter counter:
                _meter.CreateObservableCounter(counter.Name, () => Observe(counter), counter.Unit, counter.Description);
                break;
            case OperationData operation:
                _meter.CreateObservableCounter(operation.Name, () => ObserveElapsed(operation), OperationData.ElapsedUnit, operation.Description);
                _meter.CreateObservableCounter(operation.CountName, () => ObserveCount(operation), OperationCountUnit, CountDescription(operation));
                break;
        }
    }

    private static string? CountDescription(OperationData operation) =>
        operation.Description is { } description ? $"{description} (count of operations)" : null;

    private static Measurement<long>[] Observe(PartitionedCounter counter) =>
        ToMeasurements(counter.Collect(), static reading => (reading.Value, reading.Tags));

    private static Measurement<double>[] ObserveElapsed(OperationData operation) =>
        ToMeasurements(operation.Collect(), static reading => (reading.ElapsedSeconds, reading.Tags));

    private static Measurement<long>[] ObserveCount(OperationData operation) =>
        ToMeasurements(operation.Collect(), static reading => (reading.Count, reading.Tags));

    // One measurement per series, tagged with the series' tags.
    private static Measurement<T>[] ToMeasurements<TReading, T>(IReadOnlyList<TReading> readings, Func<TReading, (T Value, TagSet Tags)> select)
        where T : struct
    {
        var measurements = new Measurement<T>[readings.Count];
        for (int i = 0; i < measurements.Length; i++)
        {
            (T value, TagSet tags) = select(readings[i]);
            measurements[i] = new Measurement<T>(value, tags.AsSpan());
        }

        return measurements;
    }
}
