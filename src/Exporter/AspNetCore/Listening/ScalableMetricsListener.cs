using Microsoft.Extensions.Diagnostics.Metrics;
using ScalableMetrics.Exporter.Listening;
using SdmInstrument = System.Diagnostics.Metrics.Instrument;

namespace ScalableMetrics.Exporter;

/// <summary>
/// ScalableMetrics as a listener of .NET's metrics configuration: the instruments that
/// <c>builder.Metrics.EnableMetrics(...)</c> rules and the <c>Metrics</c> configuration section
/// enable for it are recorded into partitioned registries and scraped from the endpoint, beside
/// the meters <see cref="ScalableMetricsOptions.AddMeter"/> names. Register it with
/// <c>builder.Metrics.AddScalableMetrics()</c> or <c>builder.Metrics.AddListener&lt;ScalableMetricsListener&gt;()</c>
/// (Microsoft.Extensions.Diagnostics.Metrics), after <c>AddScalableMetrics</c>.
/// </summary>
/// <remarks>
/// <para>Rules name it by <see cref="ListenerName"/> (<c>Metrics:ScalableMetrics:EnabledMetrics</c>
/// in configuration); rules with no listener name apply to it too. As .NET's documentation teaches,
/// nothing is enabled until a rule enables it: a meter (<c>EnableMetrics("System.Net.Http")</c>,
/// <c>"System.Net.*"</c> a prefix), one instrument of it, and <c>DisableMetrics</c> for exceptions;
/// the most specific rule wins.</para>
/// <para>Each enabled instrument is recorded exactly as an instrument of an <c>AddMeter</c> meter
/// is (same kinds, tags, scope labels, dropped measurements): a registry per meter name and version,
/// exported with <c>otel_scope_name</c> the meter's name. Observable instruments are read, at each
/// scrape, through the source .NET hands the listener: one pull per scrape runs each callback once.
/// Left out: the bridge's own meter, a meter <see cref="ScalableMetricsOptions.Meters"/> takes
/// already (one aggregation), and a meter another container's <c>IMeterFactory</c> made. An
/// instrument a rule disables later (a configuration reload) stops being recorded; its series stay
/// on the endpoint, and it goes on where it was when a rule enables it again.</para>
/// <para>Thread-safe. A singleton of the container, created by .NET's metrics subscription when
/// the host starts; should it be registered twice, the second instance takes nothing, so that no
/// measurement is recorded twice.</para>
/// </remarks>
public sealed class ScalableMetricsListener : IMetricsListener
{
    /// <summary>The listener's name in rules and configuration: <c>ScalableMetrics</c>.</summary>
    public const string ListenerName = "ScalableMetrics";

    private readonly MeterListenerHost _host;
    private readonly ObservablePull _pull;

    // False for a second instance in one container, which then takes nothing.
    private readonly bool _records;

    /// <summary>Creates the listener over the registries of the container <paramref name="services"/>
    /// belongs to; the container creates it.</summary>
    /// <param name="services">The container's service provider.</param>
    /// <exception cref="ArgumentNullException"><paramref name="services"/> is null.</exception>
    /// <exception cref="InvalidOperationException"><c>AddScalableMetrics</c> was not called on the services.</exception>
    public ScalableMetricsListener(IServiceProvider services)
    {
        ArgumentNullException.ThrowIfNull(services);
        _host = services.GetService<MeterListenerHost>()
            ?? throw new InvalidOperationException("ScalableMetrics is not registered: call services.AddScalableMetrics() (or builder.Metrics.AddScalableMetrics()) before adding its listener.");
        _pull = new ObservablePull(_host.Logger);
        _records = _host.ClaimRulesListener(this);
    }

    /// <inheritdoc/>
    /// <remarks><see cref="ListenerName"/>.</remarks>
    public string Name => ListenerName;

    /// <inheritdoc/>
    /// <exception cref="ArgumentNullException"><paramref name="source"/> is null.</exception>
    public void Initialize(IObservableInstrumentsSource source)
    {
        ArgumentNullException.ThrowIfNull(source);
        _pull.SetSource(source);
    }

    /// <inheritdoc/>
    /// <returns>Whether the instrument is recorded: false for one left out (see the remarks of
    /// <see cref="ScalableMetricsListener"/>) or one the registry refuses (logged).</returns>
    /// <exception cref="ArgumentNullException"><paramref name="instrument"/> is null.</exception>
    public bool InstrumentPublished(SdmInstrument instrument, out object? userState)
    {
        ArgumentNullException.ThrowIfNull(instrument);
        userState = _records ? _host.TakeEnabled(instrument, _pull) : null;
        return userState is not null;
    }

    /// <inheritdoc/>
    public void MeasurementsCompleted(SdmInstrument instrument, object? userState) =>
        (userState as ListenedInstrument)?.Complete();

    /// <inheritdoc/>
    public MeasurementHandlers GetMeasurementHandlers() => MeasurementDispatch.CreateHandlers();
}
