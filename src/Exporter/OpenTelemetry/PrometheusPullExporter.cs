using Microsoft.Extensions.Logging.Abstractions;
using OpenTelemetry;
using OpenTelemetry.Metrics;
using ScalableMetrics.Exporter.OpenTelemetry;
using ScalableMetrics.Exporter.Prometheus.Exposition;
using ScalableMetrics.Exporter.Prometheus.Sources;

namespace ScalableMetrics.Exporter;

/// <summary>
/// An OpenTelemetry pull exporter that renders a collection in the Prometheus text exposition
/// format 0.0.4, shaped like OpenTelemetry's own Prometheus exporter: add it to a
/// <c>MeterProvider</c> through <c>AddReader(new BaseExportingMetricReader(exporter))</c>, whose
/// reader sets <see cref="Collect"/>, then call <see cref="ScrapeAsync"/> for each scrape.
/// </summary>
/// <remarks>
/// <para>Names follow OpenTelemetry's Prometheus compatibility specification: invalid characters
/// become <c>_</c>, the unit becomes a suffix (<c>s</c> → <c>_seconds</c>, <c>By</c> → <c>_bytes</c>,
/// annotations such as <c>{request}</c> are dropped), monotonic sums get <c>_total</c> and gauges
/// of unit <c>1</c> get <c>_ratio</c>; every sample carries <c>otel_scope_name</c> (and
/// <c>otel_scope_version</c> when the meter has one, <c>otel_scope_schema_url</c> when it has a
/// schema URL, and <c>otel_scope_&lt;key&gt;</c> for its tags, a tag that would be one of those
/// dropped); a point's tag named like a label the exposition writes (<c>le</c>, <c>quantile</c>,
/// <c>otel_scope_*</c>) is written with <c>tag_</c> before it. Monotonic sums are counters, other sums and
/// gauges are gauges, explicit-bucket histograms are histograms; exponential histograms are left out.</para>
/// <para>A scrape that arrives during another collection of the reader (a <c>ForceFlush</c>'s)
/// waits for it, and that collection's export writes the scrape. The reader must use cumulative
/// temporality (the default) for the counters to be what Prometheus expects.</para>
/// </remarks>
// Push too: a pull-only reader refuses every collection but a pull's, so a ForceFlush's collection
// would fail, and with it a scrape that joined it. Supporting push, the reader exports that
// collection too: into the writer of the scrape that waits for it, or, with none waiting, nowhere.
[ExportModes(ExportModes.Pull | ExportModes.Push)]
public sealed class PrometheusPullExporter : BaseExporter<Metric>, IPullMetricExporter
{
    /// <summary>The content type of <see cref="ScrapeAsync"/>'s result: <c>text/plain; version=0.0.4; charset=utf-8</c>.</summary>
    public const string ContentType = "text/plain; version=0.0.4; charset=utf-8";

    // Failed collections in a row before a scrape gives up.
    private const int MaxCollectAttempts = 3;

    // Collections a scrape is handed back, already ended, before it counts one failed attempt (CollectAgain).
    private const int MaxCollectionsHandedBack = 1000;

    private readonly PrometheusSerializer _serializer;

    // The bridge whose meter the export leaves out, and whose callbacks a scrape's collection does not run; or null.
    private readonly MeterBridge? _excludedBridge;

    // Held while a caller sets its target and collects, so that callers take turns; a
    // ForceFlush's collection does not take it, and writes into the target of the scrape that
    // waits for it, if any.
    private readonly Lock _collectLock = new();

    // Where the next export writes: the waiting scrape's writer, or null (a ForceFlush with no
    // scrape waiting: nothing to write).
    private CollectionTarget? _target;

    // ScrapeAsync's writer of the text format, kept with its caches; only under _collectLock.
    private ExpositionWriter? _textWriter;
    private bool _disposed;

    /// <summary>Creates an exporter that writes every meter of its <c>MeterProvider</c>.</summary>
    public PrometheusPullExporter()
    {
        _serializer = new PrometheusSerializer();
    }

    /// <summary>Creates an exporter that leaves out the meter of <paramref name="excludedBridge"/>,
    /// whose instruments the scrape writes from the registry itself: its collections for a scrape do
    /// not run the bridge's callbacks either (<see cref="MeterBridge.BeginSkip"/>), which would sum
    /// every series and run every observable callback a second time per scrape, for nothing.</summary>
    internal PrometheusPullExporter(MeterBridge excludedBridge)
    {
        _serializer = new PrometheusSerializer { ExcludedMeterName = excludedBridge.MeterName };
        _excludedBridge = excludedBridge;
    }

    /// <summary>
    /// The reader's collect function, set by <see cref="BaseExportingMetricReader"/> when the
    /// exporter is added to it; <see langword="null"/> before that and after the reader is disposed.
    /// </summary>
    /// <remarks>Call <see cref="ScrapeAsync"/> rather than this: it is what gives the collection's export a writer.</remarks>
    public Func<int, bool>? Collect { get; set; }

    /// <summary>
    /// Collects every metric of the <c>MeterProvider</c> and returns it in the Prometheus text format.
    /// </summary>
    /// <param name="cancellationToken">Checked before the collection starts; a collection, once
    /// started, runs to its end.</param>
    /// <returns>The UTF-8 text of the scrape, an array the caller must not change; its content type is <see cref="ContentType"/>.</returns>
    /// <exception cref="InvalidOperationException">The exporter is not (or no longer) attached to a
    /// reader of a <c>MeterProvider</c>, or the collection failed.</exception>
    /// <exception cref="ObjectDisposedException">The exporter is disposed.</exception>
    /// <exception cref="OperationCanceledException"><paramref name="cancellationToken"/> was canceled before the collection.</exception>
    /// <remarks>Thread-safe: scrapes take turns, and a scrape gets the export of the collection it
    /// waited for, whichever call (a <c>ForceFlush</c>, this one) started it.</remarks>
    public Task<byte[]> ScrapeAsync(CancellationToken cancellationToken = default)
    {
        lock (_collectLock)
        {
            ExpositionWriter output = _textWriter ??= ExpositionFormat.Of(PrometheusExpositionFormat.Text).CreateWriter();
            output.Clear();
            WriteCollection(output, new HashSet<string>(StringComparer.Ordinal), static _ => { }, cancellationToken);
            return Task.FromResult(output.ToArray());
        }
    }

    /// <summary>
    /// Collects the <c>MeterProvider</c> and writes its families straight into
    /// <paramref name="output"/>, the scrape's writer, in its format, within the collection: no
    /// rendered copy. A family whose names are in <paramref name="takenNames"/> is left out and
    /// passed to <paramref name="onTaken"/>, as is a metric left out of a family written (of another
    /// kind, or a second metric of one meter: <see cref="PrometheusSerializer"/>); the names of those written are added.
    /// </summary>
    /// <exception cref="InvalidOperationException">The exporter is not (or no longer) attached to a
    /// reader of a <c>MeterProvider</c>, or the collection failed.</exception>
    /// <exception cref="ObjectDisposedException">The exporter is disposed.</exception>
    /// <exception cref="OperationCanceledException"><paramref name="cancellationToken"/> was canceled before the collection.</exception>
    internal void WriteCollection(ExpositionWriter output, HashSet<string> takenNames, Action<string> onTaken, CancellationToken cancellationToken = default)
    {
        ObjectDisposedException.ThrowIf(_disposed, this);
        cancellationToken.ThrowIfCancellationRequested();
        Func<int, bool> collect = Collect
            ?? throw new InvalidOperationException($"The {nameof(PrometheusPullExporter)} is not attached to a MeterProvider: add it with AddReader(new BaseExportingMetricReader(exporter)).");

        // The reader runs one collection at a time; a call made during one (a ForceFlush's)
        // waits for it and returns without exporting again. The target is set before the call,
        // so the export of the collection it waits for writes into it, whichever thread runs it,
        // before the call returns. A collection refused or failed is tried again, a bounded
        // number of times, unless the reader is gone. The collections this thread runs leave the
        // excluded bridge's callbacks out (one another thread runs, a ForceFlush's, does not).
        bool written = false;
        lock (_collectLock)
        {
            var target = new CollectionTarget(output, takenNames, onTaken);
            Volatile.Write(ref _target, target);
            MeterBridge? outerSkipped = _excludedBridge?.BeginSkip();
            try
            {
                for (int attempt = 0; attempt < MaxCollectAttempts && !written; attempt++)
                {
                    if (collect(Timeout.Infinite))
                    {
                        written = target.Written || CollectAgain(collect, target);
                    }
                    else if (Collect is null || _disposed)
                    {
                        break;
                    }
                }
            }
            finally
            {
                if (_excludedBridge is not null)
                {
                    MeterBridge.EndSkip(outerSkipped);
                }

                Volatile.Write(ref _target, null);
            }
        }

        if (!written)
        {
            throw new InvalidOperationException("The MeterProvider's collection failed or was shut down; nothing was exported.");
        }
    }

    /// <summary>Writes <paramref name="batch"/> into the waiting scrape's writer, if one waits; called by the reader during a collection.</summary>
    /// <param name="batch">The collected metrics.</param>
    /// <returns><see cref="ExportResult.Success"/>.</returns>
    public override ExportResult Export(in Batch<Metric> batch)
    {
        // The reader never runs two collections at once, so the serializer's scratch state is
        // used by one export at a time; and the scrape whose target this is waits in its
        // collect call until this export returns.
        if (Volatile.Read(ref _target) is { Written: false } target)
        {
            _serializer.Write(batch, target.Output, target.TakenNames, target.OnTaken);
            target.Written = true;
        }

        return ExportResult.Success;
    }

    /// <inheritdoc/>
    protected override void Dispose(bool disposing)
    {
        _disposed = true;
        base.Dispose(disposing);
    }

    /// <summary>
    /// Creates a <see cref="PrometheusScraper"/> of <paramref name="registry"/> whose scrapes write,
    /// after the registry's families, those of this exporter's <c>MeterProvider</c>: what the
    /// ScalableMetrics.Prometheus package's constructor took as <c>otherMeters</c> before the packages
    /// were split, here so that that package needs no OpenTelemetry.
    /// </summary>
    /// <param name="registry">The registry whose instruments every scrape writes.</param>
    /// <param name="scopeName">The <c>otel_scope_name</c> label of the registry's samples: the bridge's meter name.</param>
    /// <param name="scopeVersion">The <c>otel_scope_version</c> label, or <see langword="null"/> for none.</param>
    /// <param name="logger">Where the families and series left out are reported; <see langword="null"/> for nowhere.</param>
    /// <returns>A scraper the caller owns; scrapes fail as <see cref="ScrapeAsync"/> does while this exporter is not attached to a reader.</returns>
    /// <exception cref="ArgumentNullException"><paramref name="registry"/> or <paramref name="scopeName"/> is null.</exception>
    /// <exception cref="ArgumentException"><paramref name="scopeName"/> is empty or white space.</exception>
    /// <remarks>Where this exporter's <c>MeterProvider</c> also reads the bridge's meter, a family
    /// of it whose name the registry's part already wrote is left out of the scrape and logged.</remarks>
    public PrometheusScraper CreateScraper(MetricRegistry registry, string scopeName, string? scopeVersion = null, ILogger<PrometheusScraper>? logger = null) =>
        new(registry, scopeName, scopeVersion, logger, listened: null, [new MeterProviderSource(this, logger ?? (ILogger)NullLogger.Instance)]);

    // A collection that exported before the target was set (a ForceFlush's, which the call
    // joined as it ended) wrote nowhere: the collection right after it begins after the target
    // was set. OpenTelemetry's reader forgets a collection only after releasing the calls that
    // waited for it, so until it has, a call can be handed that same collection again (true, and
    // nothing exported): tried again, yielding to the reader's thread, a bounded number of times,
    // not counted as a failure.
    private static bool CollectAgain(Func<int, bool> collect, CollectionTarget target)
    {
        var spin = new SpinWait();
        while (collect(Timeout.Infinite))
        {
            if (target.Written)
            {
                return true;
            }

            if (spin.Count >= MaxCollectionsHandedBack)
            {
                return false;
            }

            spin.SpinOnce();
        }

        return false;
    }

    // What a scrape waits to have written: its writer, its taken names, and whether an export wrote it.
    private sealed class CollectionTarget(ExpositionWriter output, HashSet<string> takenNames, Action<string> onTaken)
    {
        public ExpositionWriter Output => output;

        public HashSet<string> TakenNames => takenNames;

        public Action<string> OnTaken => onTaken;

        // Set by the export (on the reader's thread), read by the scrape after its collect call returns.
        public bool Written
        {
            get => Volatile.Read(ref _written);
            set => Volatile.Write(ref _written, value);
        }

        private bool _written;
    }
}
