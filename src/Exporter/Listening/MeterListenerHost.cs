using System.Collections.Concurrent;
using System.Diagnostics.Metrics;
using Microsoft.Extensions.Logging;
using SdmInstrument = System.Diagnostics.Metrics.Instrument;

namespace ScalableMetrics.Exporter.Listening;

/// <summary>
/// The <see cref="MeterListener"/> that takes the instruments of the meters
/// <see cref="ScalableMetricsOptions.Meters"/> names: every instrument of a matching meter,
/// present and future, is enabled with the registry instrument it records into as its state.
/// </summary>
/// <remarks>
/// <para><b>One registry per meter name and version</b> (<see cref="ListenedScope"/>), so that
/// the exposition names each family's scope as OpenTelemetry does (<c>otel_scope_name</c> = the
/// source meter's name) with the registry source's own scope labels, and so that two meters may
/// each have an instrument of the same name. Meters of one name and version (one per container
/// of an <c>IMeterFactory</c>, say) share a registry, and an instrument of one name in them is
/// one registry instrument, as OpenTelemetry aggregates them as one stream.</para>
/// <para>The bridge's own meter is never taken: its instruments are the registry's already.</para>
/// <para>An instrument disposed (or whose meter is disposed) stops being listened to: its state
/// drops the last reference to it. Its registry instrument and series stay, readable until this
/// host is disposed.</para>
/// <para>Thread-safe. Started by the hosted service, disposed with the container.</para>
/// </remarks>
internal sealed partial class MeterListenerHost : IDisposable
{
    private readonly MeterNameMatcher _matcher;
    private readonly string _bridgeMeterName;
    private readonly Func<MetricRegistry> _createRegistry;
    private readonly ILogger _logger;

    // The container's factory, where it has one: a meter another container's factory made
    // belongs to that container (.NET's IMeterFactory guidance), and taking it too would count
    // another host's measurements here (two hosts in one process, as tests run them).
    private readonly IMeterFactory? _meterFactory;
    private readonly ConcurrentDictionary<(string Name, string? Version), ListenedScope> _scopes = new();
    private readonly Lock _startLock = new();
    private MeterListener? _listener;
    private bool _disposed;

    public MeterListenerHost(IEnumerable<string> meters, string bridgeMeterName, Func<MetricRegistry> createRegistry, ILogger logger, IMeterFactory? meterFactory = null)
    {
        _meterFactory = meterFactory;
        _matcher = new MeterNameMatcher(meters);
        _bridgeMeterName = bridgeMeterName;
        _createRegistry = createRegistry;
        _logger = logger;
        Drops = new ListenerDrops(logger);
    }

    /// <summary>The measurements dropped because the registry would refuse them.</summary>
    public ListenerDrops Drops { get; }

    /// <summary>Whether <paramref name="meterName"/> is taken here (and so left out of the <c>MeterProvider</c>).</summary>
    public bool Takes(string meterName) =>
        !string.Equals(meterName, _bridgeMeterName, StringComparison.Ordinal) && _matcher.Matches(meterName);

    /// <summary>The registries so far, in no set order.</summary>
    public IReadOnlyCollection<ListenedScope> Scopes => [.. _scopes.Values];

    /// <summary>Starts listening, once; does nothing when no meter is named.</summary>
    public void Start()
    {
        lock (_startLock)
        {
            ObjectDisposedException.ThrowIf(_disposed, this);
            if (_listener is not null || _matcher.IsEmpty)
            {
                return;
            }

            _listener = new MeterListener
            {
                InstrumentPublished = OnInstrumentPublished,
                MeasurementsCompleted = static (_, state) => (state as ListenedInstrument)?.Complete(),
            };
            MeasurementDispatch.Attach(_listener);
            _listener.Start();
        }
    }

    /// <summary>Whether <paramref name="meter"/> is a process-wide one (no scope, e.g. <c>System.Runtime</c>) or was made by this container's <see cref="IMeterFactory"/>; true for every meter where the container has no factory.</summary>
    public bool IsOfThisContainer(Meter meter) =>
        _meterFactory is null || meter.Scope is null || ReferenceEquals(meter.Scope, _meterFactory);

    public void Dispose()
    {
        lock (_startLock)
        {
            _disposed = true;

            // Calls MeasurementsCompleted for every enabled instrument, which lets the observable ones go.
            _listener?.Dispose();
            _listener = null;
        }
    }

    private void OnInstrumentPublished(SdmInstrument instrument, MeterListener listener)
    {
        if (!Takes(instrument.Meter.Name) || !IsOfThisContainer(instrument.Meter))
        {
            return;
        }

        ListenedScope scope = _scopes.GetOrAdd((instrument.Meter.Name, instrument.Meter.Version), key => new ListenedScope(_createRegistry(), key.Name, key.Version));
        ListenedInstrument? state;
        try
        {
            state = ListenedInstrumentFactory.Create(instrument, scope, Drops);
        }
        catch (Exception e) when (e is ArgumentException or InvalidOperationException)
        {
            LogNotTaken(_logger, e, instrument.Name, instrument.Meter.Name);
            return;
        }

        if (state is null)
        {
            LogNotTaken(_logger, null, instrument.Name, instrument.Meter.Name);
            return;
        }

        listener.EnableMeasurementEvents(instrument, state);
    }

    [LoggerMessage(EventId = 21, Level = LogLevel.Warning, Message = "The instrument '{Instrument}' of the meter '{Meter}' is not aggregated by ScalableMetrics: the registry refused it, or has no instrument of its kind.")]
    private static partial void LogNotTaken(ILogger logger, Exception? exception, string instrument, string meter);
}
