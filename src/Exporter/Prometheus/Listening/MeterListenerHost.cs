using System.Collections.Concurrent;
using System.Diagnostics.Metrics;
using Microsoft.Extensions.Logging;
using ScalableMetrics.Naming;
using SdmInstrument = System.Diagnostics.Metrics.Instrument;

namespace ScalableMetrics.Exporter.Listening;

/// <summary>
/// The <see cref="MeterListener"/> that takes the instruments of the meters
/// <c>ScalableMetricsOptions.Meters</c> names: every instrument of a matching meter,
/// present and future, is enabled with the registry instrument it records into as its state.
/// It also owns the listened registries of the instruments .NET's metrics rules enable for the
/// <c>ScalableMetricsListener</c> (<see cref="TakeEnabled"/>), so that both ways in share
/// one set of registries, one export and one recording path.
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
    private readonly Func<string, MetricRegistry> _createRegistry;
    private readonly ILogger _logger;

    // The container's factory, where it has one: a meter another container's factory made
    // belongs to that container (.NET's IMeterFactory guidance), and taking it too would count
    // another host's measurements here (two hosts in one process, as tests run them).
    private readonly IMeterFactory? _meterFactory;
    private readonly ConcurrentDictionary<(string Name, string? Version), ListenedScope> _scopes = new();
    private readonly Lock _startLock = new();
    private MeterListener? _listener;

    // Every exported name a listened instrument took, across meters, with the one that took it;
    // also the lock under which instruments are checked against it and created.
    private readonly Dictionary<string, (ListenedScope Scope, ExportedFamily Family, string Instrument)> _exportedNames = new(StringComparer.Ordinal);
    private long _refusedInstruments;
    private object? _rulesListener;
    private bool _disposed;

    public MeterListenerHost(IEnumerable<string> meters, string bridgeMeterName, Func<MetricRegistry> createRegistry, ILogger logger, IMeterFactory? meterFactory = null)
        : this(meters, bridgeMeterName, _ => createRegistry(), logger, meterFactory)
    {
    }

    /// <summary>A host whose registries are made per meter name (<paramref name="createRegistry"/> is handed it),
    /// so that views (<see cref="MetricRegistryOptions.Views"/>) match the listened meter's name.</summary>
    public MeterListenerHost(IEnumerable<string> meters, string bridgeMeterName, Func<string, MetricRegistry> createRegistry, ILogger logger, IMeterFactory? meterFactory = null)
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

    /// <summary>Where the listeners log, the rules' listener's failing callbacks included.</summary>
    public ILogger Logger => _logger;

    /// <summary>Whether <paramref name="meterName"/> is taken here (and so left out of the <c>MeterProvider</c>).</summary>
    public bool Takes(string meterName) =>
        !string.Equals(meterName, _bridgeMeterName, StringComparison.Ordinal) && _matcher.Matches(meterName);

    /// <summary>The registries so far, in no set order.</summary>
    public IReadOnlyCollection<ListenedScope> Scopes => [.. _scopes.Values];

    /// <summary>How many scopes <see cref="Scopes"/> holds: scopes are only ever added, so a reader
    /// that keeps what it derived from them knows it is stale when this number moves.</summary>
    public int ScopeCount => _scopes.Count;

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

        if (Take(instrument, pull: null) is { } state)
        {
            listener.EnableMeasurementEvents(instrument, state);
        }
    }

    /// <summary>Makes <paramref name="listener"/> the container's one listener of .NET's metrics
    /// rules, unless another is already: a listener registered twice (<c>AddListener</c> and
    /// <c>AddScalableMetrics</c> both) would record every measurement twice.</summary>
    /// <returns>Whether <paramref name="listener"/> is that one.</returns>
    public bool ClaimRulesListener(object listener) =>
        Interlocked.CompareExchange(ref _rulesListener, listener, null) is null || ReferenceEquals(Volatile.Read(ref _rulesListener), listener);

    /// <summary>
    /// The listener state of an instrument that .NET's metrics rules enabled for the
    /// <c>ScalableMetricsListener</c>, recording into the registry of its meter's scope, or
    /// null where it is not taken: its meter is the bridge's, is taken by <c>ScalableMetricsOptions.Meters</c>
    /// (whose listener records it already: one aggregation), or is another container's; or the
    /// registry refuses it.
    /// </summary>
    /// <param name="instrument">The instrument the rules enabled.</param>
    /// <param name="pull">What reads its observable instruments: the rules' listener's source.</param>
    public ListenedInstrument? TakeEnabled(SdmInstrument instrument, ObservablePull pull)
    {
        if (string.Equals(instrument.Meter.Name, _bridgeMeterName, StringComparison.Ordinal) || Takes(instrument.Meter.Name) || !IsOfThisContainer(instrument.Meter))
        {
            return null;
        }

        return Take(instrument, pull);
    }

    // Creates the registry instrument and its listener state, or logs why not and returns null.
    // pull: null where the group of an observable instrument observes it through a listener of its own.
    private ListenedInstrument? Take(SdmInstrument instrument, ObservablePull? pull)
    {
        // A version of "" is no version: both are exported without otel_scope_version (Prometheus)
        // and scope.version (OTLP), so two scopes of them would write one series twice.
        string? version = string.IsNullOrEmpty(instrument.Meter.Version) ? null : instrument.Meter.Version;
        ListenedScope scope = _scopes.GetOrAdd((instrument.Meter.Name, version), key => new ListenedScope(_createRegistry(key.Name), key.Name, key.Version) { SchemaUrl = instrument.Meter.TelemetrySchemaUrl });
        if (scope.Registry.ViewOf(instrument.Name) is { Drop: true })
        {
            // A view drops it: not listened to at all, so its measurements cost nothing here.
            return null;
        }

        ListenedInstrument? state;
        try
        {
            lock (_exportedNames)
            {
                ExportedFamily? family = FamilyOf(instrument, scope.Registry.ViewOf(instrument.Name)?.Name ?? instrument.Name);
                if (family is not null && ConflictOf(scope, family) is { } other)
                {
                    Interlocked.Increment(ref _refusedInstruments);
                    LogExportConflict(_logger, instrument.Name, instrument.Meter.Name, family.TextName, other.Instrument, other.Scope.MeterName, other.Family.TextName);
                    return null;
                }

                state = ListenedInstrumentFactory.Create(instrument, scope, Drops, _logger, pull);
                if (state is not null && family is not null)
                {
                    foreach (string name in family.ReservedNames)
                    {
                        _exportedNames.TryAdd(name, (scope, family, instrument.Name));
                    }
                }
            }
        }
        catch (Exception e) when (e is ArgumentException or InvalidOperationException)
        {
            LogNotTaken(_logger, e, instrument.Name, instrument.Meter.Name);
            return null;
        }

        if (state is null)
        {
            LogNotTaken(_logger, null, instrument.Name, instrument.Meter.Name);
        }
        else if (ListenedInstrumentFactory.UnitOf(instrument) is var unit && !string.Equals(unit, instrument.Unit, StringComparison.Ordinal))
        {
            LogUnitReplaced(_logger, instrument.Unit!, instrument.Name, instrument.Meter.Name, unit is null ? "no unit" : $"the unit '{unit}'");
        }

        return state;
    }

    /// <summary>Instruments refused because their exported names meet another listened meter's
    /// instrument of another kind or unit (self-diagnostics count them).</summary>
    public long RefusedInstruments => Volatile.Read(ref _refusedInstruments);

    // What a listened instrument exports as, before its registry creates it; null for a kind the
    // registry has not (the factory then leaves it out).
    private static ExportedFamily? FamilyOf(SdmInstrument instrument, string name) =>
        ListenedType.Of(instrument) is { } type ? ExportedFamily.Of(name, ListenedInstrumentFactory.UnitOf(instrument), type.ExportedKind) : null;

    // Another meter's instrument whose exported names meet family's but that is not the same family
    // (name, kind and unit): the two cannot be one family, and two of one name are invalid in every
    // format. Within one meter the registry itself refuses such names.
    private (ListenedScope Scope, ExportedFamily Family, string Instrument)? ConflictOf(ListenedScope scope, ExportedFamily family)
    {
        foreach (string name in family.ReservedNames)
        {
            if (_exportedNames.TryGetValue(name, out var other) && !ReferenceEquals(other.Scope, scope)
                && !(other.Family.Name == family.Name && other.Family.Kind == family.Kind && other.Family.Unit == family.Unit))
            {
                return other;
            }
        }

        return null;
    }

    [LoggerMessage(EventId = 22, Level = LogLevel.Error, Message = "The instrument '{Instrument}' of the meter '{Meter}' is refused: it would export as '{Family}', whose names the instrument '{OtherInstrument}' of the meter '{OtherMeter}' exports as '{OtherFamily}', of another kind or unit. Rename one of them; until then only the first is scraped.")]
    private static partial void LogExportConflict(ILogger logger, string instrument, string meter, string family, string otherInstrument, string otherMeter, string otherFamily);

    [LoggerMessage(EventId = 25, Level = LogLevel.Warning, Message = "The unit '{Unit}' of the instrument '{Instrument}' of the meter '{Meter}' is outside OpenTelemetry's unit syntax (at most 63 ASCII characters), which the registry keeps to: the instrument is recorded and exported with {RecordedUnit} instead.")]
    private static partial void LogUnitReplaced(ILogger logger, string unit, string instrument, string meter, string recordedUnit);

    [LoggerMessage(EventId = 21, Level = LogLevel.Warning, Message = "The instrument '{Instrument}' of the meter '{Meter}' is not aggregated by ScalableMetrics: the registry refused it, or has no instrument of its kind.")]
    private static partial void LogNotTaken(ILogger logger, Exception? exception, string instrument, string meter);
}
