using ScalableMetrics.Instruments.Histograms;
using System.Collections.Concurrent;
using System.Diagnostics.Metrics;
using ScalableMetrics.Exporter.OpenTelemetry;
using ScalableMetrics.Instruments;
using ScalableMetrics.Naming;
using ScalableMetrics.Snapshots;

namespace ScalableMetrics.Exporter;

/// <summary>
/// Publishes every instrument of a <see cref="MetricRegistry"/>, those created before the bridge
/// and those created after it, as observable instruments of a <see cref="System.Diagnostics.Metrics.Meter"/>,
/// so that any <see cref="MeterListener"/> (an OpenTelemetry <c>MeterProvider</c> among them)
/// reads the partitioned sums when it collects.
/// </summary>
/// <remarks>
/// <para>Each instrument keeps its name, unit and description, and each series is one measurement
/// with the series' tags:</para>
/// <list type="table">
/// <listheader><term>registry instrument</term><description>published as</description></listheader>
/// <item><term><see cref="PartitionedCounter"/></term><description><see cref="ObservableCounter{T}"/> of <see cref="long"/></description></item>
/// <item><term><see cref="PartitionedDoubleCounter"/></term><description><see cref="ObservableCounter{T}"/> of <see cref="double"/></description></item>
/// <item><term><see cref="PartitionedUpDownCounter"/>, <see cref="PartitionedDoubleUpDownCounter"/></term><description><see cref="ObservableUpDownCounter{T}"/> of <see cref="long"/>, <see cref="double"/></description></item>
/// <item><term><see cref="Gauge"/>, <see cref="DoubleGauge"/></term><description><see cref="ObservableGauge{T}"/> of <see cref="long"/>, <see cref="double"/> (the series set at least once)</description></item>
/// <item><term><see cref="ScalableMetrics.ObservableCounter"/>, <see cref="ScalableMetrics.ObservableUpDownCounter"/>,
/// <see cref="ScalableMetrics.ObservableGauge"/></term><description>the observable instrument of the same kind, of
/// <see cref="double"/> or <see cref="long"/> as the callback reports (<see cref="ObservableInstrument.IsFloatingPoint"/>;
/// <see cref="long"/> values pass through the registry as <see cref="double"/>, exact up to 2^53). The
/// callback runs at each collection of a listener, and at each scrape, which reads the registry
/// itself: the scrape's collection of the <c>MeterProvider</c> of <c>UseOpenTelemetry()</c>, whose
/// families leave the bridge's meter out, does not run the bridge's callbacks; one that throws fails
/// that instrument's measurement in that collection, as any failing callback of
/// <see cref="System.Diagnostics.Metrics"/> does (OpenTelemetry reports it in its own diagnostics), and
/// no other instrument's.</description></item>
/// <item><term><see cref="OperationData"/> <c>x</c>, with or without bucket boundaries</term><description>two:
/// <c>x</c>, an <see cref="ObservableCounter{T}"/> of <see cref="double"/> in seconds (the total elapsed time), and
/// <c>x.count</c>, an <see cref="ObservableCounter{T}"/> of <see cref="long"/> in <c>{operation}</c>. Their
/// names are reserved by the registry, which names them (<see cref="OperationData.CountNameSuffix"/>).</description></item>
/// <item><term><see cref="PartitionedHistogram"/></term><description>nothing, and the buckets of an
/// <see cref="OperationData"/> are not published either: OpenTelemetry .NET cannot take a histogram
/// someone else aggregated (it has no <c>MetricProducer</c>: open-telemetry/opentelemetry-dotnet#3963),
/// and an observable instrument carries one number per series. A reader of the bridge (an OTLP
/// exporter) gets no histogram; scrape the Prometheus endpoint for the buckets, or time the operation
/// with an <see cref="OperationData"/>, whose count and total time (so the mean) cross as the two counters above.</description></item>
/// </list>
/// <para>A monotonic counter (a counter, a <see cref="double"/> counter, an operation's two) never
/// goes down across a removal (docs/series-lifecycle.md): a series made after its tags' series was
/// removed counts from zero in the registry, and is reported on top of the removed series' final
/// total while the listener still holds a point for those tags (a read of the instrument between
/// the two that finds neither ends it), so a delta reader gets each recorded value once and never a
/// negative delta. An observable instrument's values are its callback's, as they come.</para>
/// <para>Each listener's collection of the meter is a collection of the registry
/// (docs/series-lifecycle.md), a tool's (<c>dotnet-counters</c>) as much as a <c>MeterProvider</c>'s:
/// a listener cannot be told from another when it reads. (The bridge that <c>UseOpenTelemetry()</c>
/// makes differs while no <c>MeterProvider</c> reads its meter: it publishes the registry to tools
/// in the host's stead, and their reads are no collections, as the host's publication's.)</para>
/// <para>The partitions are summed only when a listener collects; recording stays as cheap as
/// without the bridge. An operation's two instruments report one read of it per collection (the
/// one a listener runs first reads it for both), so their count and total time agree, and idle
/// expiry counts one collection. Thread-safe.</para>
/// </remarks>
public sealed class MeterBridge : IDisposable
{
    /// <summary>The name of the meter when none is given: <c>ScalableMetrics</c>.</summary>
    public const string DefaultMeterName = "ScalableMetrics";

    /// <summary>The unit of the instrument that counts an <see cref="OperationData"/>'s operations.</summary>
    public const string OperationCountUnit = PublishedInstrument.CountUnit;

    // The bridge whose callbacks report nothing on this thread (BeginSkip), or null.
    [ThreadStatic]
    private static MeterBridge? s_skipped;

    private readonly Meter _meter;
    private readonly IDisposable _subscription;

    // Set by Dispose: from then on the callbacks report nothing, whatever a listener that
    // collects meanwhile still holds of the meter.
    private volatile bool _disposed;

    // Whether the callbacks' reads are collections (ReadsAreCollections): a bridge's are, but the
    // container's, until a MeterProvider takes its meter (ReadByMeterProvider).
    private volatile bool _readsAreCollections;

    // The series limit of the registry instrument each meter instrument publishes, by the meter
    // instrument's name: noted before the meter instrument is created, since a listener's view
    // (OpenTelemetryLimits) asks for it while the meter creates it. At most two per registry instrument.
    private readonly ConcurrentDictionary<string, int> _seriesLimits = new(StringComparer.Ordinal);

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
        : this(registry, meterName, meterVersion, meterFactory: null)
    {
    }

    /// <summary>Starts publishing <paramref name="registry"/> on a meter named <paramref name="meterName"/>,
    /// scoped to <paramref name="meterFactory"/>'s container where there is one.</summary>
    /// <param name="registry">The registry to publish.</param>
    /// <param name="meterName">The meter's name: what an OpenTelemetry <c>MeterProvider</c> must <c>AddMeter</c>.</param>
    /// <param name="meterVersion">The meter's version, or <see langword="null"/> for none.</param>
    /// <param name="meterFactory">The container's meter factory (<c>services.AddMetrics()</c>), whose container the
    /// meter is scoped to: its <see cref="Meter.Scope"/> is the factory, as that of a meter the factory makes, so the
    /// container's listeners (<c>EnableMetrics</c> rules for its local meters) take it as the container's and another
    /// container's do not. <see langword="null"/> for a meter of no scope.</param>
    /// <remarks>The bridge owns its meter either way, and <see cref="Dispose"/> disposes it: the factory is not asked
    /// to make it, since a meter the factory makes ignores <see cref="Meter.Dispose()"/> until the container is disposed,
    /// and is the one meter of its name and version the factory hands to every caller. Where the container makes the
    /// bridge (<c>UseOpenTelemetry()</c>, <c>AddScalableMetricsInstrumentation</c>), the container disposes it, and with it the meter.</remarks>
    /// <exception cref="ArgumentNullException"><paramref name="registry"/> or <paramref name="meterName"/> is null.</exception>
    /// <exception cref="ArgumentException"><paramref name="meterName"/> is empty or white space.</exception>
    public MeterBridge(MetricRegistry registry, string meterName, string? meterVersion, IMeterFactory? meterFactory)
        : this(registry, meterName, meterVersion, meterFactory, readsAreCollections: true)
    {
    }

    /// <summary>Starts publishing <paramref name="registry"/> as the public constructor of the same arguments does,
    /// its reads collections or not until a <c>MeterProvider</c> takes the meter (<see cref="ReadsAreCollections"/>).</summary>
    /// <param name="registry">The registry to publish.</param>
    /// <param name="meterName">The meter's name.</param>
    /// <param name="meterVersion">The meter's version, or <see langword="null"/> for none.</param>
    /// <param name="meterFactory">The container's meter factory, or <see langword="null"/>.</param>
    /// <param name="readsAreCollections">Whether the reads are collections from the start: <see langword="false"/>
    /// for the container's bridge, which publishes the registry to tools in the host's stead.</param>
    internal MeterBridge(MetricRegistry registry, string meterName, string? meterVersion, IMeterFactory? meterFactory, bool readsAreCollections)
    {
        ArgumentNullException.ThrowIfNull(registry);
        ArgumentException.ThrowIfNullOrWhiteSpace(meterName);
        Registry = registry;
        _readsAreCollections = readsAreCollections;

        // Not meterFactory.Create: that meter would outlive Dispose (see the remarks).
        _meter = new Meter(new MeterOptions(meterName) { Version = meterVersion, Scope = meterFactory });
        var publisher = new Publisher(this);

        // Called under the registry's lock: creating the meter's instruments there is fine,
        // creating registry instruments is not.
        _subscription = registry.ObserveInstruments(instrument => instrument.Accept(publisher));
    }

    /// <summary>The name of the meter the instruments are published on.</summary>
    public string MeterName => _meter.Name;

    /// <summary>The version of the meter, or <see langword="null"/>.</summary>
    public string? MeterVersion => _meter.Version;

    /// <summary>The registry the bridge publishes.</summary>
    internal MetricRegistry Registry { get; }

    // Whether the callbacks report nothing on this thread.
    private bool Skipped => ReferenceEquals(s_skipped, this);

    /// <summary>
    /// Whether <paramref name="meter"/> is this bridge's own meter, the one instance: not another
    /// meter of its name (another container's bridge, or a host's publication of its registry).
    /// OpenTelemetry's <c>AddMeter</c> takes every meter of a name in the process, so a
    /// <c>MeterProvider</c> tells its bridge's meter from the others by this (<see cref="OpenTelemetryLimits"/>).
    /// </summary>
    /// <param name="meter">The meter of an instrument a <c>MeterProvider</c> is offered.</param>
    /// <returns><see langword="true"/> where it is the meter this bridge publishes on.</returns>
    internal bool Owns(Meter meter) => ReferenceEquals(meter, _meter);

    /// <summary>
    /// The series limit of the registry instrument that the meter's instrument
    /// <paramref name="instrumentName"/> publishes: <see cref="MetricRegistryOptions.MaxSeriesPerInstrument"/>,
    /// or its view's <see cref="MetricView.CardinalityLimit"/>; the registry's
    /// <see cref="MetricRegistry.MaxSeriesPerInstrument"/> for a name the bridge did not publish.
    /// Known from just before the meter creates the instrument, when a listener's view asks.
    /// </summary>
    /// <param name="instrumentName">The name of an instrument of the bridge's meter.</param>
    /// <returns>The most series the registry keeps for it before its overflow series.</returns>
    internal int SeriesLimitOf(string instrumentName) =>
        _seriesLimits.TryGetValue(instrumentName, out int limit) ? limit : Registry.MaxSeriesPerInstrument;

    /// <summary>
    /// Whether the callbacks' reads of the registry are collections of it
    /// (<see cref="Instrument.ReadInto(InstrumentSnapshot, bool)"/>), with a removed series' last
    /// value and a count toward idle expiry: a listener's collection of the meter is its export. So
    /// they are for a bridge made with its public constructors, which a <c>MeterProvider</c> reads.
    /// The container's bridge (<c>UseOpenTelemetry()</c>, <c>AddScalableMetricsInstrumentation</c>) waits for one:
    /// where none takes its meter, it publishes the registry to <see cref="MeterListener"/>s alone
    /// (<c>dotnet-counters</c>) in the host's stead, and their reads are no collections, as those of
    /// the host's own publication (docs/listening.md): each series' value as it is. Once a provider
    /// takes the meter (<see cref="ReadByMeterProvider"/>), every read is a collection, a tool's too:
    /// a listener cannot be told from another when it reads.
    /// </summary>
    internal bool ReadsAreCollections => _readsAreCollections;

    /// <summary>Notes that a <c>MeterProvider</c> takes the meter: from now on the callbacks' reads are
    /// collections (<see cref="ReadsAreCollections"/>). Called as the provider is built, before it listens.</summary>
    internal void ReadByMeterProvider() => _readsAreCollections = true;

    /// <summary>Ends what <see cref="BeginSkip"/> began on the calling thread.</summary>
    /// <param name="outer">What <see cref="BeginSkip"/> returned.</param>
    internal static void EndSkip(MeterBridge? outer) => s_skipped = outer;

    /// <summary>
    /// Has this bridge's callbacks report nothing on the calling thread, until <see cref="EndSkip"/>:
    /// around a collection of a <c>MeterProvider</c> whose export leaves the bridge's meter out (the
    /// scrape's, <see cref="PrometheusPullExporter"/>), which would otherwise sum every series and
    /// run every observable instrument's callback for nothing, and count a collection for idle expiry.
    /// A listener that collects on another thread meanwhile reads the bridge as ever.
    /// </summary>
    /// <returns>The bridge skipped on this thread before, for <see cref="EndSkip"/>.</returns>
    internal MeterBridge? BeginSkip()
    {
        MeterBridge? outer = s_skipped;
        s_skipped = this;
        return outer;
    }

    /// <summary>Stops publishing: instruments created from now on are not published, the callbacks report
    /// nothing, and the meter, which the bridge owns whether or not it is scoped to a meter factory's container,
    /// is disposed, which ends every listener's measurements of it.</summary>
    public void Dispose()
    {
        // Unsubscribe first: once it returns the registry will not publish on a disposed meter.
        _subscription.Dispose();
        _disposed = true;
        _meter.Dispose();
    }

    private static string? CountDescription(OperationData operation) =>
        operation.Description is { } description ? $"{description} (count of operations)" : null;

    // The callback reported longs, which the registry holds as doubles: exact up to 2^53, as in the exposition.
    private static Measurement<long>[] ObserveDoublesAsLongs(Instrument instrument, bool collection) => SnapshotReadings.Measurements(instrument, static (snapshot, i) => (long)snapshot.DoubleValues[i], collection);

    /// <summary>
    /// Publishes one registry instrument on the meter, by its kind (see the table in the remarks
    /// of <see cref="MeterBridge"/>): a kind the core adds does not compile until it is published
    /// or, as a histogram, left out here on purpose.
    /// </summary>
    private sealed class Publisher(MeterBridge bridge) : IInstrumentSink
    {
        private readonly Meter _meter = bridge._meter;

        // A monotonic counter reports its totals through CounterTotals, which carries a removed
        // series' total on to a later series of its tags: its point never goes down.
        public void Counter(PartitionedCounter counter)
        {
            var totals = new CounterTotals<long>(counter, static (snapshot, i) => snapshot.LongValues[i], SaturatingCounts.Add);
            _meter.CreateObservableCounter(Limited(counter.Name, counter), Observe(collection => collection
                ? totals.Read(static (total, tags) => new Measurement<long>(total, tags.AsSpan()))
                : SnapshotReadings.LongMeasurements(counter, collection: false)), counter.Unit, counter.Description);
        }

        public void DoubleCounter(PartitionedDoubleCounter counter)
        {
            var totals = new CounterTotals<double>(counter, static (snapshot, i) => snapshot.DoubleValues[i], CounterSums.Add);
            _meter.CreateObservableCounter(Limited(counter.Name, counter), Observe(collection => collection
                ? totals.Read(static (total, tags) => new Measurement<double>(total, tags.AsSpan()))
                : SnapshotReadings.DoubleMeasurements(counter, collection: false)), counter.Unit, counter.Description);
        }

        public void UpDownCounter(PartitionedUpDownCounter counter) =>
            _meter.CreateObservableUpDownCounter(Limited(counter.Name, counter), Observe(collection => SnapshotReadings.LongMeasurements(counter, collection)), counter.Unit, counter.Description);

        public void DoubleUpDownCounter(PartitionedDoubleUpDownCounter counter) =>
            _meter.CreateObservableUpDownCounter(Limited(counter.Name, counter), Observe(collection => SnapshotReadings.DoubleMeasurements(counter, collection)), counter.Unit, counter.Description);

        public void Gauge(Gauge gauge) =>
            _meter.CreateObservableGauge(Limited(gauge.Name, gauge), Observe(collection => SnapshotReadings.LongMeasurements(gauge, collection)), gauge.Unit, gauge.Description);

        public void DoubleGauge(DoubleGauge gauge) =>
            _meter.CreateObservableGauge(Limited(gauge.Name, gauge), Observe(collection => SnapshotReadings.DoubleMeasurements(gauge, collection)), gauge.Unit, gauge.Description);

        public void ObservableCounter(ScalableMetrics.ObservableCounter counter) =>
            PublishObserved(counter, _meter.CreateObservableCounter, _meter.CreateObservableCounter);

        public void ObservableUpDownCounter(ScalableMetrics.ObservableUpDownCounter counter) =>
            PublishObserved(counter, _meter.CreateObservableUpDownCounter, _meter.CreateObservableUpDownCounter);

        public void ObservableGauge(ScalableMetrics.ObservableGauge gauge) =>
            PublishObserved(gauge, _meter.CreateObservableGauge, _meter.CreateObservableGauge);

        // An observable instrument's callback reports longs or doubles (IsFloatingPoint), which the
        // registry holds as doubles: published as the type it reports, by the meter's method for
        // its kind, once for each type.
        private void PublishObserved(
            ObservableInstrument instrument,
            Func<string, Func<IEnumerable<Measurement<double>>>, string?, string?, object> createDoubles,
            Func<string, Func<IEnumerable<Measurement<long>>>, string?, string?, object> createLongs)
        {
            if (instrument.IsFloatingPoint)
            {
                createDoubles(Limited(instrument.Name, instrument), Observe(collection => SnapshotReadings.DoubleMeasurements(instrument, collection)), instrument.Unit, instrument.Description);
            }
            else
            {
                createLongs(Limited(instrument.Name, instrument), Observe(collection => ObserveDoublesAsLongs(instrument, collection)), instrument.Unit, instrument.Description);
            }
        }

        public void Operation(OperationData operation)
        {
            // Under the names the registry reserved for them.
            PublishedInstrument elapsed = PublishedInstrument.OperationElapsed(operation.Name);
            PublishedInstrument count = PublishedInstrument.OperationCount(operation.Name);
            // One collection for both (OperationTotals), continued across removals as a counter's; a
            // read that is no collection reads each as it is, as the host's publication does.
            var totals = new OperationTotals(operation);
            _meter.CreateObservableCounter(
                Limited(elapsed.Name, operation),
                Observe(collection => collection ? totals.MeasureSeconds() : SnapshotReadings.Measurements(operation, static (snapshot, i) => snapshot.ElapsedSecondsAt(i), collection: false)),
                elapsed.Unit,
                operation.Description);
            _meter.CreateObservableCounter(
                Limited(count.Name, operation),
                Observe(collection => collection ? totals.MeasureCounts() : SnapshotReadings.Measurements(operation, static (snapshot, i) => snapshot.OperationCountAt(i), collection: false)),
                count.Unit,
                CountDescription(operation));
        }

        // A histogram cannot cross (see the remarks of MeterBridge): it is left out.
        public void Histogram(PartitionedHistogram histogram)
        {
        }

        public void ExponentialHistogram(PartitionedExponentialHistogram histogram)
        {
        }

        // name, the series limit of the meter instrument about to be created under it for
        // instrument noted first (SeriesLimitOf): a listener's view asks while the meter creates it.
        private string Limited(string name, Instrument instrument)
        {
            bridge._seriesLimits[name] = instrument.MaxSeries;
            return name;
        }

        // What an instrument's callback reports: what read reads, as a collection or not
        // (ReadsAreCollections), or nothing where the bridge is skipped on this thread (BeginSkip:
        // the scrape's collection of its MeterProvider) or disposed.
        private Func<IEnumerable<Measurement<T>>> Observe<T>(Func<bool, Measurement<T>[]> read)
            where T : struct =>
            () => bridge.Skipped || bridge._disposed ? [] : read(bridge._readsAreCollections);
    }
}
