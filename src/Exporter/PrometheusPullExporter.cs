using OpenTelemetry;
using OpenTelemetry.Metrics;
using ScalableMetrics.Exporter.Prometheus;

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
/// <para>Scrapes run one at a time: a scrape that arrives during another waits for it, then
/// collects afresh. The reader must use cumulative temporality (the default) for the counters to
/// be what Prometheus expects.</para>
/// </remarks>
[ExportModes(ExportModes.Pull)]
public sealed class PrometheusPullExporter : BaseExporter<Metric>, IPullMetricExporter
{
    /// <summary>The content type of <see cref="ScrapeAsync"/>'s result: <c>text/plain; version=0.0.4; charset=utf-8</c>.</summary>
    public const string ContentType = "text/plain; version=0.0.4; charset=utf-8";

    private readonly SemaphoreSlim _scrapeLock = new(1, 1);
    private readonly PrometheusSerializer _serializer = new();
    private bool _exported;
    private bool _disposed;

    /// <summary>
    /// The reader's collect function, set by <see cref="BaseExportingMetricReader"/> when the
    /// exporter is added to it; <see langword="null"/> before that and after the reader is disposed.
    /// </summary>
    /// <remarks>Call <see cref="ScrapeAsync"/> rather than this: it is what serializes scrapes.</remarks>
    public Func<int, bool>? Collect { get; set; }

    /// <summary>
    /// Collects every metric of the <c>MeterProvider</c> and returns it in the Prometheus text format.
    /// </summary>
    /// <param name="cancellationToken">Cancels the wait for a scrape in progress; a collection,
    /// once started, runs to its end.</param>
    /// <returns>The UTF-8 text of the scrape, a new array the caller owns; its content type is <see cref="ContentType"/>.</returns>
    /// <exception cref="InvalidOperationException">The exporter is not (or no longer) attached to a
    /// reader of a <c>MeterProvider</c>, or the collection failed.</exception>
    /// <exception cref="ObjectDisposedException">The exporter is disposed.</exception>
    /// <exception cref="OperationCanceledException"><paramref name="cancellationToken"/> was canceled while waiting.</exception>
    public async Task<byte[]> ScrapeAsync(CancellationToken cancellationToken = default)
    {
        ObjectDisposedException.ThrowIf(_disposed, this);
        await _scrapeLock.WaitAsync(cancellationToken).ConfigureAwait(false);
        try
        {
            Func<int, bool> collect = Collect
                ?? throw new InvalidOperationException($"The {nameof(PrometheusPullExporter)} is not attached to a MeterProvider: add it with AddReader(new BaseExportingMetricReader(exporter)).");

            _serializer.Output.Clear();
            _exported = false;

            // Collect calls Export on this thread before it returns. It can also return without
            // calling it, when it joined a collection someone else had started (a ForceFlush).
            if (!collect(Timeout.Infinite) || !_exported)
            {
                throw new InvalidOperationException("The MeterProvider's collection failed or was shut down; nothing was exported.");
            }

            return _serializer.Output.WrittenSpan.ToArray();
        }
        finally
        {
            _scrapeLock.Release();
        }
    }

    /// <summary>Serializes <paramref name="batch"/>; called by the reader during <see cref="Collect"/>.</summary>
    /// <param name="batch">The collected metrics.</param>
    /// <returns><see cref="ExportResult.Success"/>.</returns>
    public override ExportResult Export(in Batch<Metric> batch)
    {
        _serializer.Write(batch);
        _exported = true;
        return ExportResult.Success;
    }

    /// <inheritdoc/>
    protected override void Dispose(bool disposing)
    {
        // Not the semaphore: a scrape may still be inside it, and it holds no unmanaged handle
        // unless its AvailableWaitHandle is asked for, which nothing here does.
        _disposed = true;
        base.Dispose(disposing);
    }
}
