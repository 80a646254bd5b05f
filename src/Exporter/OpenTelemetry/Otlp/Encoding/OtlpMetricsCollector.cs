using System.Runtime.CompilerServices;
using Microsoft.Extensions.Logging.Abstractions;
using ScalableMetrics.Exporter.Prometheus.Exposition;

namespace ScalableMetrics.Exporter.OpenTelemetry.Otlp.Encoding;

/// <summary>
/// Turns registries into OTLP: each <see cref="Collect"/> reads every instrument of every scope
/// once, straight from its series as the Prometheus exposition does, and encodes one
/// <c>ExportMetricsServiceRequest</c> (opentelemetry-proto <c>collector/metrics/v1</c>): one
/// <c>ResourceMetrics</c> with the service's resource, one <c>ScopeMetrics</c> per scope that has a
/// data point (with the meter's <c>TelemetrySchemaUrl</c> as its <c>schema_url</c> where it has one),
/// one <c>Metric</c> per instrument that has one (<see cref="OtlpInstrumentEncoder"/>).
/// </summary>
/// <remarks>
/// <para>Why not through OpenTelemetry's SDK: OpenTelemetry .NET 1.20.1 has no <c>MetricProducer</c>
/// (open-telemetry/opentelemetry-dotnet#3963), and <c>Metric</c>, <c>MetricPoint</c> and
/// <c>HistogramBuckets</c> cannot be built outside it, so nothing public hands it buckets
/// aggregated elsewhere.</para>
/// <para>The body is encoded by hand into one buffer kept from collection to collection
/// (<see cref="ProtobufBuffer"/>), each series' attributes once per series. Counters and histograms
/// (those without exemplars) are read straight into arrays kept from collection to collection, as
/// the Prometheus scrape reads them (<c>ReadInto</c>), so a steady collection of them allocates
/// nothing per series; the other kinds are read as readings.</para>
/// <para>Delta temporality keeps each series' reading of the last accepted export
/// (<see cref="OtlpExportBatch.Commit"/>); see <see cref="OtlpInstrumentEncoder"/> for what goes delta.
/// Under either temporality, a series no longer read keeps its last point until an export carrying
/// it is accepted (<see cref="OtlpInstrumentState.Unsent"/>).</para>
/// <para>Not thread-safe: one collection at a time, and a batch's <see cref="OtlpExportBatch.Commit"/>
/// before the next collection (the export loop never runs two exports at once). Two collections at
/// once throw <see cref="InvalidOperationException"/> rather than corrupt the shared buffer.</para>
/// </remarks>
internal sealed class OtlpMetricsCollector
{
    private readonly Func<IEnumerable<OtlpScope>> _scopes;
    private readonly byte[] _resource;
    private readonly OtlpTemporality _temporality;
    private readonly TimeProvider _time;
    private readonly ProtobufBuffer _output = new(64 * 1024);
    private readonly OtlpInstrumentEncoder _encoder;
    private readonly ConditionalWeakTable<Instrument, OtlpInstrumentState> _states = [];

    // The instruments the last collection read, whose series a commit of it moves.
    private readonly List<OtlpInstrumentState> _read = [];
    private long _generation;
    private ulong _lastCommitUnixNano;
    private int _collecting;

    // The length of the last collection's ResourceMetrics: where to expect this one's, and its scopes' (see ProtobufBuffer.BeginMessage(int, int)).
    private int _expectedLength;

    /// <summary>Creates a collector.</summary>
    /// <param name="scopes">Called at each collection: every registry to export with its scope (the hosted
    /// registry under <see cref="ScalableMetricsOptions.MeterName"/>, each listened meter's, and the self-metrics', <see cref="OtlpScope"/>).</param>
    /// <param name="resourceAttributes">The resource: <c>service.name</c>, <c>service.instance.id</c>,
    /// <c>service.version</c> and <c>OTEL_RESOURCE_ATTRIBUTES</c>' (<c>Hosting/ServiceResource</c>), as <c>target_info</c> has them;
    /// encoded once, here. An attribute with a null value is left out.</param>
    /// <param name="temporality">The temporality of sums and histograms.</param>
    /// <param name="logger">Where a failing observable callback is logged; none by default.</param>
    /// <param name="timeProvider">The clock of <c>time_unix_nano</c>; the system's by default.</param>
    /// <exception cref="ArgumentNullException"><paramref name="scopes"/> or <paramref name="resourceAttributes"/> is null.</exception>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="temporality"/> is not a defined value.</exception>
    public OtlpMetricsCollector(
        Func<IEnumerable<OtlpScope>> scopes,
        IEnumerable<KeyValuePair<string, object?>> resourceAttributes,
        OtlpTemporality temporality,
        ILogger? logger = null,
        TimeProvider? timeProvider = null)
    {
        ArgumentNullException.ThrowIfNull(scopes);
        ArgumentNullException.ThrowIfNull(resourceAttributes);
        if (!Enum.IsDefined(temporality))
        {
            throw new ArgumentOutOfRangeException(nameof(temporality), temporality, "The temporality must be Cumulative, Delta or LowMemory.");
        }

        _scopes = scopes;
        _temporality = temporality;
        _time = timeProvider ?? TimeProvider.System;
        _encoder = new OtlpInstrumentEncoder(_output, temporality, logger ?? NullLogger.Instance);
        var scratch = new ProtobufBuffer(256);
        OtlpAttributes.Write(scratch, OtlpFields.ResourceAttributes, resourceAttributes);
        _resource = scratch.Written.ToArray();
    }

    /// <summary>The temporality of the sums and histograms it encodes.</summary>
    public OtlpTemporality Temporality => _temporality;

    /// <summary>Reads every scope once and encodes one <c>ExportMetricsServiceRequest</c> (protobuf bytes).</summary>
    /// <returns>The batch; its body is valid until the next collection.</returns>
    /// <exception cref="InvalidOperationException">Another collection is under way.</exception>
    public OtlpExportBatch Collect()
    {
        // The export loop never overlaps collections; this checks it in every build (a Debug.Assert
        // would end a test host), since two at once would write over each other in the one buffer.
        if (Interlocked.Exchange(ref _collecting, 1) != 0)
        {
            throw new InvalidOperationException("An OTLP collection is already under way; collections must not overlap.");
        }

        try
        {
            long generation = ++_generation;
            ulong now = OtlpInstrumentEncoder.UnixNano(_time.GetUtcNow());
            _read.Clear();
            _output.Clear();
            _encoder.BeginExport(generation, now, _lastCommitUnixNano);

            int expected = _expectedLength;
            int resourceMetrics = _output.BeginMessage(OtlpFields.RequestResourceMetrics, expected);
            int resource = _output.BeginMessage(OtlpFields.ResourceMetricsResource);
            _output.Raw(_resource);
            _output.EndMessage(resource);
            foreach (OtlpScope scope in _scopes())
            {
                WriteScope(scope);
            }

            _expectedLength = _output.EndMessage(resourceMetrics, expected);
            return new OtlpExportBatch(this, generation, now, _output.Written, _encoder.DataPoints);
        }
        finally
        {
            Volatile.Write(ref _collecting, 0);
        }
    }

    /// <summary>
    /// Moves every series' baseline to the collection <paramref name="generation"/>, taken at
    /// <paramref name="timeUnixNano"/>, and lets go of the series it did not read (it carried the
    /// last point of each that still owed one); a cumulative collection moves no baseline.
    /// </summary>
    internal void Commit(long generation, ulong timeUnixNano)
    {
        // A batch older than the last collection: that collection's readings are the pending ones now.
        if (generation != _generation)
        {
            return;
        }

        bool delta = _temporality != OtlpTemporality.Cumulative;
        foreach (OtlpInstrumentState state in _read)
        {
            state.Commit(generation, timeUnixNano, delta);
        }

        _lastCommitUnixNano = timeUnixNano;
    }

    private void WriteScope(OtlpScope scope)
    {
        int mark = _output.Position;
        int expected = _expectedLength;
        int scopeMetrics = _output.BeginMessage(OtlpFields.ResourceMetricsScopeMetrics, expected);
        int instrumentationScope = _output.BeginMessage(OtlpFields.ScopeMetricsScope);
        _output.String(OtlpFields.ScopeName, scope.Name);
        if (!string.IsNullOrEmpty(scope.Version))
        {
            _output.String(OtlpFields.ScopeVersion, scope.Version);
        }

        _output.EndMessage(instrumentationScope);
        if (!string.IsNullOrEmpty(scope.SchemaUrl))
        {
            // The meter's Meter.TelemetrySchemaUrl, as OpenTelemetry .NET writes it since 1.15.
            _output.String(OtlpFields.ScopeMetricsSchemaUrl, scope.SchemaUrl);
        }

        int points = _encoder.DataPoints;
        foreach (Instrument instrument in scope.Registry.CollectedInstruments)
        {
            // An observable instrument has no series until its callback is first called: a collection
            // is what calls it. One whose last series were removed may still owe their last points.
            OtlpInstrumentState? state = null;
            if (instrument.SeriesCount == 0 && instrument is not ObservableInstrument
                && !(_states.TryGetValue(instrument, out state) && state.MayOwePoints))
            {
                continue;
            }

            state ??= _states.GetValue(instrument, static _ => new OtlpInstrumentState());
            if (_encoder.Write(instrument, state))
            {
                _read.Add(state);
            }
        }

        if (_encoder.DataPoints == points)
        {
            _output.Truncate(mark);
        }
        else
        {
            _output.EndMessage(scopeMetrics, expected);
        }
    }
}
