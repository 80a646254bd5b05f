using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Logging.Abstractions;
using OpenTelemetry;
using OpenTelemetry.Metrics;
using ScalableMetrics.Exporter.OpenTelemetry;
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
/// <c>otel_scope_version</c> when the meter has one). Monotonic sums are counters, other sums and
/// gauges are gauges, explicit-bucket histograms are histograms; exponential histograms are left out.</para>
/// <para>A scrape that arrives during another collection of the reader waits for it and takes its
/// result. The reader must use cumulative temporality (the default) for the counters to be what
/// Prometheus expects.</para>
/// </remarks>
// Push too: a pull-only reader refuses every collection but a pull's, so a ForceFlush's collection
// would fail, and with it a scrape that joined it. Supporting push, the reader exports that
// collection too, into a result of its own, which the scrape that joined it takes.
[ExportModes(ExportModes.Pull | ExportModes.Push)]
public sealed class PrometheusPullExporter : BaseExporter<Metric>, IPullMetricExporter
{
    /// <summary>The content type of <see cref="ScrapeAsync"/>'s result: <c>text/plain; version=0.0.4; charset=utf-8</c>.</summary>
    public const string ContentType = "text/plain; version=0.0.4; charset=utf-8";

    // Failed collections in a row before a scrape gives up.
    private const int MaxCollectAttempts = 3;

    // Collections a scrape is handed back, already ended, before it counts one failed attempt (CollectAfterAnotherFormat).
    private const int MaxCollectionsHandedBack = 1000;

    private readonly PrometheusSerializer _serializer;

    // Held while a caller sets the format and collects, so that callers asking for two formats
    // take turns; a ForceFlush's collection does not take it, and renders the format last asked for.
    private readonly Lock _collectLock = new();
    private RenderedCollection? _latest;

    // The format the next export renders (a PrometheusExpositionFormat): only the one asked for,
    // not every format on every collection.
    private int _format;
    private bool _disposed;

    /// <summary>Creates an exporter that writes every meter of its <c>MeterProvider</c>.</summary>
    public PrometheusPullExporter()
        : this(excludedMeterName: null)
    {
    }

    /// <summary>Creates an exporter that leaves out the meter <paramref name="excludedMeterName"/>:
    /// the bridge's, whose instruments the scrape writes from the registry itself.</summary>
    internal PrometheusPullExporter(string? excludedMeterName)
    {
        _serializer = new PrometheusSerializer { ExcludedMeterName = excludedMeterName };
    }

    /// <summary>
    /// The reader's collect function, set by <see cref="BaseExportingMetricReader"/> when the
    /// exporter is added to it; <see langword="null"/> before that and after the reader is disposed.
    /// </summary>
    /// <remarks>Call <see cref="ScrapeAsync"/> rather than this: it is what takes the collection's result.</remarks>
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
    /// <remarks>Thread-safe, and independent of other collections of the same reader (a
    /// <c>ForceFlush</c>, another scrape): each collection writes its own result, and a scrape
    /// takes the result of the collection it waited for.</remarks>
    public async Task<byte[]> ScrapeAsync(CancellationToken cancellationToken = default) =>
        (await CollectAsync(PrometheusExpositionFormat.Text, cancellationToken).ConfigureAwait(false)).Bytes;

    /// <summary>Collects the <c>MeterProvider</c> and renders it in <paramref name="format"/>; see <see cref="ScrapeAsync"/>.</summary>
    internal Task<RenderedCollection> CollectAsync(PrometheusExpositionFormat format, CancellationToken cancellationToken = default)
    {
        ObjectDisposedException.ThrowIf(_disposed, this);
        cancellationToken.ThrowIfCancellationRequested();
        Func<int, bool> collect = Collect
            ?? throw new InvalidOperationException($"The {nameof(PrometheusPullExporter)} is not attached to a MeterProvider: add it with AddReader(new BaseExportingMetricReader(exporter)).");

        // The reader runs one collection at a time; a call made during one (a ForceFlush, another
        // scrape) waits for it and returns its result without exporting again. Each export
        // leaves a result of its own, so the newest is whole and at least as new as the
        // collection this call waited for. A collection refused or failed is tried again, a
        // bounded number of times, unless the reader is gone.
        RenderedCollection? collection = null;
        lock (_collectLock)
        {
            Volatile.Write(ref _format, (int)format);
            for (int attempt = 0; attempt < MaxCollectAttempts && collection is null; attempt++)
            {
                if (collect(Timeout.Infinite))
                {
                    collection = LatestIn(format) ?? CollectAfterAnotherFormat(collect, format);
                }
                else if (Collect is null || _disposed)
                {
                    break;
                }
            }
        }

        if (collection is null)
        {
            throw new InvalidOperationException("The MeterProvider's collection failed or was shut down; nothing was exported.");
        }

        return Task.FromResult(collection);
    }

    /// <summary>Serializes <paramref name="batch"/> into a result of its own; called by the reader during a collection.</summary>
    /// <param name="batch">The collected metrics.</param>
    /// <returns><see cref="ExportResult.Success"/>.</returns>
    public override ExportResult Export(in Batch<Metric> batch)
    {
        // The reader never runs two collections at once, so the serializer's scratch state is
        // used by one export at a time; the result is new and never changed after this.
        Volatile.Write(ref _latest, _serializer.Write(batch, (PrometheusExpositionFormat)Volatile.Read(ref _format)));
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

    // A collection that had exported before the format was set (a ForceFlush's) rendered the format
    // asked for before: the collection right after it begins after the format was set. OpenTelemetry's
    // reader forgets a collection only after releasing the calls that waited for it, so until it
    // has, a call can be handed that same collection again (true, and nothing exported): tried
    // again, yielding to the reader's thread, a bounded number of times, not counted as a failure.
    private RenderedCollection? CollectAfterAnotherFormat(Func<int, bool> collect, PrometheusExpositionFormat format)
    {
        var spin = new SpinWait();
        while (collect(Timeout.Infinite))
        {
            if (LatestIn(format) is { } collection)
            {
                return collection;
            }

            if (spin.Count >= MaxCollectionsHandedBack)
            {
                return null;
            }

            spin.SpinOnce();
        }

        return null;
    }

    private RenderedCollection? LatestIn(PrometheusExpositionFormat format) =>
        Volatile.Read(ref _latest) is { } latest && latest.Format == format ? latest : null;
}
