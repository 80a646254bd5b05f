using System.Diagnostics;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Logging.Abstractions;
using ScalableMetrics.Exporter.Listening;
using ScalableMetrics.Exporter.Prometheus.Exposition;
using ScalableMetrics.Exporter.Prometheus.Scraping;
using ScalableMetrics.Exporter.Prometheus.SelfMetrics;
using ScalableMetrics.Exporter.Prometheus.Sources;
using ScalableMetrics.Naming;

namespace ScalableMetrics.Exporter;

/// <summary>
/// Answers a Prometheus scrape: the registry's instruments, read straight from their series, then
/// the families of the other sources it was given (the listened meters, an OpenTelemetry
/// <c>MeterProvider</c>'s other meters through the ScalableMetrics.OpenTelemetry package's
/// <c>PrometheusPullExporter.CreateScraper</c>), in the text exposition format 0.0.4,
/// OpenMetrics 1.0 or Prometheus' protobuf exposition (<see cref="PrometheusExpositionFormat"/>).
/// </summary>
/// <remarks>
/// <para>The registry's part shows exactly the series the registry keeps, with its limits only:
/// past <see cref="MetricRegistryOptions.MaxSeriesPerInstrument"/> its overflow series
/// (<c>otel_metric_overflow="true"</c>), and no other; no cap on the number of instruments.
/// A <see cref="PartitionedCounter"/> is a counter <c>B_total</c>; an <see cref="OperationData"/>
/// a summary <c>S_seconds</c> of samples <c>S_seconds_sum</c> and <c>S_seconds_count</c>.</para>
/// <para>No family is written twice and no two samples are ones Prometheus would store as one:
/// a family of the <c>MeterProvider</c> whose name the registry's part already wrote is left out
/// and logged once as a warning, and a tag can never take the place of a scope label.</para>
/// <para>Thread-safe. Concurrent scrapes are coalesced: one that arrives while a collection runs
/// waits for it and gets its body; one that arrives when none runs starts a collection, so a
/// scrape never reads older values than a scrape that ended before it started. Collections run
/// one at a time, each to its end on the thread pool, whatever becomes of the scrapes waiting
/// for it. Independent of the <c>MeterProvider</c>'s other collections (a <c>ForceFlush</c>,
/// another reader): they share no buffer with a scrape.</para>
/// <para>Disposing it ends every scrape waiting, and refuses later ones, with an
/// <see cref="ObjectDisposedException"/>; a collection running finishes in the background.</para>
/// </remarks>
public sealed partial class PrometheusScraper : IDisposable
{
    /// <summary>The content type of <see cref="ScrapeAsync(CancellationToken)"/>'s result: <c>text/plain; version=0.0.4; charset=utf-8</c>.</summary>
    public const string ContentType = "text/plain; version=0.0.4; charset=utf-8";

    /// <summary>The content type of a scrape in <see cref="PrometheusExpositionFormat.OpenMetrics"/>: <c>application/openmetrics-text; version=1.0.0; charset=utf-8</c>.</summary>
    public const string OpenMetricsContentType = "application/openmetrics-text; version=1.0.0; charset=utf-8";

    /// <summary>The content type of a scrape in <see cref="PrometheusExpositionFormat.Protobuf"/>: <c>application/vnd.google.protobuf; proto=io.prometheus.client.MetricFamily; encoding=delimited</c>.</summary>
    public const string ProtobufContentType = "application/vnd.google.protobuf; proto=io.prometheus.client.MetricFamily; encoding=delimited";

    // The names target_info reserves, as a name filter reads them: made once, not at every collection.
    private static readonly string[] s_targetInfoNames = [ExportedNames.TargetInfoName, ExportedNames.TargetInfoFamilyName];

    private readonly SemaphoreSlim _scrapeLock = new(1, 1);
    private readonly ILogger _logger;

    // The causes of the failed collections a scrape was answered 500 for, each logged once.
    private readonly CallbackFailureLog _collectionFailures;

    // What a scrape writes after target_info, in this order: the registry, the listened meters,
    // the library's own families, then the sources other packages add (the MeterProvider's other meters).
    private readonly IScrapeSource[] _sources;

    // Where each collection's duration goes: the self-metrics' scrape duration; null where none are written.
    private readonly ScrapeDurations? _durations;

    // How many escaping schemes a format's writers are kept for (EscapingScheme's values).
    private const int EscapingSchemes = 4;

    // Each exposition format's coalescer and writer per escaping of its names (FormatIndex): scrapes
    // of one format and escaping share a body, never another's.
    private readonly ScrapedFormat[] _formats;
    private readonly MetricRegistry _registry;
    private readonly PrometheusNameTranslation _nameTranslation;
    private readonly HashSet<string> _takenNames = new(StringComparer.Ordinal);

    // Each (format, name[] filter) asked for, its own coalescer and writer, as _formats; at most
    // MaxFilteredFormats kept, a filter past them served by a collection of its own.
    private readonly System.Collections.Concurrent.ConcurrentDictionary<(ExpositionFormat Format, EscapingScheme Escaping, string Names), ScrapedFormat> _filtered = new();
    private LabelBlock? _targetInfo;

    // Canceled, never disposed, by Dispose: a scrape may still be linking its token to it.
    private readonly CancellationTokenSource _disposing = new();

    /// <summary>Creates a scraper of <paramref name="registry"/>.</summary>
    /// <param name="registry">The registry whose instruments every scrape writes.</param>
    /// <param name="scopeName">The <c>otel_scope_name</c> label of the registry's samples: the bridge's meter name.</param>
    /// <param name="scopeVersion">The <c>otel_scope_version</c> label, or <see langword="null"/> for none.</param>
    /// <param name="logger">Where the families and series left out are reported; <see langword="null"/> for nowhere.</param>
    /// <exception cref="ArgumentNullException"><paramref name="registry"/> or <paramref name="scopeName"/> is null.</exception>
    /// <exception cref="ArgumentException"><paramref name="scopeName"/> is empty or white space.</exception>
    /// <remarks>A scraper made here writes no <c>scalablemetrics_*</c> families about the library
    /// itself: the one <c>AddScalableMetrics</c> registers does (<c>ScalableMetricsOptions.ExportSelfMetrics</c>).
    /// A scraper that also writes an OpenTelemetry <c>MeterProvider</c>'s other meters comes from the
    /// ScalableMetrics.OpenTelemetry package (<c>PrometheusPullExporter.CreateScraper</c>), so that
    /// this package needs no OpenTelemetry.</remarks>
    public PrometheusScraper(MetricRegistry registry, string scopeName, string? scopeVersion = null, ILogger<PrometheusScraper>? logger = null)
        : this(registry, scopeName, scopeVersion, logger, listened: null)
    {
    }

    /// <summary>Creates a scraper that also writes the registries of the meters <paramref name="listened"/> takes, each with its meter's scope labels,
    /// after <paramref name="registry"/>'s, then the registry of <paramref name="selfMetrics"/>, the families about the library itself,
    /// to which it reports each collection's duration, then each of <paramref name="otherSources"/> in turn.</summary>
    internal PrometheusScraper(MetricRegistry registry, string scopeName, string? scopeVersion, ILogger<PrometheusScraper>? logger, MeterListenerHost? listened, IEnumerable<IScrapeSource>? otherSources = null, SelfMetricsRegistry? selfMetrics = null)
    {
        ArgumentNullException.ThrowIfNull(registry);
        ArgumentException.ThrowIfNullOrWhiteSpace(scopeName);
        ILogger log = logger ?? (ILogger)NullLogger.Instance;
        _logger = log;
        _collectionFailures = new CallbackFailureLog(cause => LogCollectionFailed(log, cause, cause.GetType().Name, cause.Message));
        _registry = registry;
        List<IScrapeSource> sources = [new RegistrySource(registry, scopeName, scopeVersion, log)];
        if (listened is not null)
        {
            sources.Add(new ListenedMetersSource(listened, log));
        }

        // The self-metrics' registry is read as any registry is, with the two twists only it takes (RegistrySource).
        if (selfMetrics is not null)
        {
            sources.Add(new RegistrySource(selfMetrics.Registry, selfMetrics.ScopeName, selfMetrics.ScopeVersion, log, selfMetrics: true));
            _durations = selfMetrics.Durations;
        }

        if (otherSources is not null)
        {
            sources.AddRange(otherSources);
        }

        _sources = [.. sources];
        _formats = new ScrapedFormat[ExpositionFormat.All.Length * EscapingSchemes];
        foreach (ExpositionFormat format in ExpositionFormat.All)
        {
            foreach (EscapingScheme escaping in Enum.GetValues<EscapingScheme>())
            {
                _formats[FormatIndex(format, escaping)] = new ScrapedFormat(format, CollectAsync, WriterOf(escaping));
            }
        }
    }

    /// <summary>How many collections ran: fewer than the scrapes when concurrent ones were coalesced. For tests.</summary>
    internal int Collections => _formats.Sum(static format => format.Coalescer.Collections);

    /// <summary>
    /// How instrument names and tag keys become metric and label names where a scraper allows
    /// UTF-8 names (<c>escaping=allow-utf-8</c>, Prometheus 3's default, or <c>dots</c> or
    /// <c>values</c>), under the names of OpenTelemetry's <c>translation_strategy</c>
    /// (<see cref="PrometheusNameTranslation"/>). Set before the first scrape.
    /// </summary>
    /// <remarks>
    /// <para>Default: <see cref="PrometheusNameTranslation.UnderscoreEscapingWithSuffixes"/>, the names
    /// every scrape has always had (<c>http_server_request_duration_seconds</c>), whatever the scraper
    /// allows; <see cref="PrometheusNameTranslation.NoUTF8EscapingWithSuffixes"/> writes
    /// <c>http.server.request.duration_seconds</c> where UTF-8 is allowed, and
    /// <see cref="PrometheusNameTranslation.NoTranslation"/> <c>http.server.request.duration</c>.
    /// A scraper that allows no UTF-8 names gets the default's names under any translation.</para>
    /// <para>Setting a UTF-8 translation makes the registry refuse, from then on, an instrument whose
    /// names would meet another's under it and any escaping scheme (an <see cref="ArgumentException"/> from
    /// its <c>Create*</c> method naming both), as it refuses names that meet under the default.</para>
    /// </remarks>
    /// <exception cref="ArgumentOutOfRangeException">The value is not a defined translation.</exception>
    /// <exception cref="ArgumentException">Two instruments the registry already holds would export alike under it; the message names both.</exception>
    public PrometheusNameTranslation NameTranslation
    {
        get => _nameTranslation;
        init
        {
            if (!Enum.IsDefined(value))
            {
                throw new ArgumentOutOfRangeException(nameof(NameTranslation), value, $"Not a defined {nameof(PrometheusNameTranslation)}.");
            }

            if (value != PrometheusNameTranslation.UnderscoreEscapingWithSuffixes)
            {
                _registry.ReserveTranslatedNames(value == PrometheusNameTranslation.NoUTF8EscapingWithSuffixes, nameof(NameTranslation));
            }

            _nameTranslation = value;
        }
    }

    // The writer of a format for scrapes of an escaping, made on its first collection, with the settings read then.
    private Func<ExpositionFormat, ExpositionWriter> WriterOf(EscapingScheme escaping) =>
        format => format.CreateWriter(EnableOpenMetricsTextCreatedSamples, escaping, _nameTranslation == PrometheusNameTranslation.NoUTF8EscapingWithSuffixes);

    private static int FormatIndex(ExpositionFormat format, EscapingScheme escaping) => ((int)format.Id * EscapingSchemes) + (int)escaping;

    /// <summary>
    /// Whether an OpenMetrics scrape writes a <c>_created</c> sample (when the series started
    /// counting, in seconds since the Unix epoch) after each series of a counter, histogram or
    /// summary whose start is known. Set before the first scrape.
    /// </summary>
    /// <remarks>
    /// <para>Default: <see langword="false"/>, as client_golang's <c>promhttp.HandlerOpts.EnableOpenMetricsTextCreatedSamples</c>
    /// (client_golang#1408) and OpenTelemetry .NET's Prometheus exporter (#7754) have it. Prometheus
    /// stores each <c>_created</c> line as a series of its own (a <c>gauge</c>-like
    /// <c>B_created</c> beside <c>B_total</c>) unless it runs with
    /// <c>--enable-feature=created-timestamp-zero-ingestion</c> (prometheus/prometheus#6541), which
    /// nearly doubles the series of a service made mostly of counters and histograms.</para>
    /// <para>Whatever it says, the protobuf exposition carries a known start as the
    /// <c>created_timestamp</c> of the series' <c>Counter</c>, <c>Summary</c> or <c>Histogram</c>
    /// message, a field rather than a series, and the text format 0.0.4 has no start at all.</para>
    /// </remarks>
    public bool EnableOpenMetricsTextCreatedSamples { get; init; }

    /// <summary>
    /// The resource attributes (<c>service.name</c>, <c>service.instance.id</c>,
    /// <c>service.version</c>, ...) written as the labels of a <c>target_info</c> gauge of value 1
    /// first in every scrape, as OpenTelemetry's Prometheus compatibility specification asks
    /// (keys sanitized: <c>service_name</c>); none, and no <c>target_info</c>, when empty. Set before the first scrape.
    /// </summary>
    internal IEnumerable<KeyValuePair<string, object?>> ResourceAttributes
    {
        init
        {
            KeyValuePair<string, object?>[] attributes = [.. value];
            _targetInfo = attributes.Length == 0 ? null : LabelBlock.Create(new PrometheusTextWriter(), [], attributes);
        }
    }

    /// <summary>The content type of a scrape in <paramref name="format"/>.</summary>
    /// <param name="format">The format.</param>
    /// <returns><see cref="OpenMetricsContentType"/>, <see cref="ProtobufContentType"/> or <see cref="ContentType"/>.</returns>
    public static string ContentTypeOf(PrometheusExpositionFormat format) =>
        format is PrometheusExpositionFormat.OpenMetrics or PrometheusExpositionFormat.Protobuf ? ExpositionFormat.Of(format).ContentType : ContentType;

    /// <summary>Reads the registry (and the <c>MeterProvider</c>, if any) and returns the scrape in the text format 0.0.4.</summary>
    /// <param name="cancellationToken">Cancels the wait for a scrape in progress; a scrape, once started, runs to its end.</param>
    /// <returns>The UTF-8 text, a new array the caller owns; its content type is <see cref="ContentType"/>.</returns>
    /// <exception cref="InvalidOperationException">The <c>MeterProvider</c>'s collection failed, or its exporter is not attached to one.</exception>
    /// <exception cref="ObjectDisposedException">This scraper, or the <c>MeterProvider</c>'s exporter, is disposed.</exception>
    /// <exception cref="OperationCanceledException"><paramref name="cancellationToken"/> was canceled while waiting.</exception>
    public Task<byte[]> ScrapeAsync(CancellationToken cancellationToken = default) =>
        ScrapeAsync(PrometheusExpositionFormat.Text, cancellationToken);

    /// <summary>Reads the registry (and the <c>MeterProvider</c>, if any) and returns the scrape in <paramref name="format"/>.</summary>
    /// <param name="format">The format; its content type is <see cref="ContentTypeOf"/>.</param>
    /// <param name="cancellationToken">Cancels the wait for a scrape in progress; a scrape, once started, runs to its end.</param>
    /// <returns>The UTF-8 text, or the delimited protobuf messages, a new array the caller owns.</returns>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="format"/> is not a defined format.</exception>
    /// <exception cref="InvalidOperationException">The <c>MeterProvider</c>'s collection failed, or its exporter is not attached to one.</exception>
    /// <exception cref="ObjectDisposedException">The <c>MeterProvider</c>'s exporter is disposed.</exception>
    /// <exception cref="OperationCanceledException"><paramref name="cancellationToken"/> was canceled while waiting.</exception>
    public async Task<byte[]> ScrapeAsync(PrometheusExpositionFormat format, CancellationToken cancellationToken = default)
    {
        ExpositionFormat chosen = ExpositionFormat.Of(format, nameof(format));

        // The caller's own array, copied from the shared body once; the body's buffer goes back when the lease ends.
        using ScrapeBodyLease lease = await LeaseAsync(chosen, Timeout.InfiniteTimeSpan, cancellationToken).ConfigureAwait(false);
        return lease.Body.ToArray();
    }

    /// <summary>
    /// The scrape's body in <paramref name="format"/>, shared with every scrape of that format that joined the same collection: write it, never change it.
    /// </summary>
    /// <remarks>An array of the body's length, copied once per collection, for callers that keep it (tests, benchmarks' checks); a response is written from <see cref="LeaseAsync(ExpositionFormat, TimeSpan, CancellationToken)"/>'s body, never a copy.</remarks>
    /// <param name="format">The format.</param>
    /// <param name="timeout">How long to wait for the body (<see cref="Timeout.InfiniteTimeSpan"/> for ever); past it, the
    /// scrape is logged and fails, and the collection, left to run, serves the scrapes that join it before it ends.</param>
    /// <param name="cancellationToken">Cancels the wait (not the collection).</param>
    /// <exception cref="TimeoutException">The body was not ready within <paramref name="timeout"/>.</exception>
    /// <exception cref="ObjectDisposedException">This scraper was disposed before or while waiting, or the <c>MeterProvider</c>'s exporter is.</exception>
    /// <exception cref="InvalidOperationException">The collection failed.</exception>
    /// <exception cref="OperationCanceledException"><paramref name="cancellationToken"/> was canceled while waiting.</exception>
    internal async Task<byte[]> ScrapeSharedAsync(ExpositionFormat format, TimeSpan timeout, CancellationToken cancellationToken)
    {
        using ScrapeBodyLease lease = await LeaseAsync(format, timeout, cancellationToken).ConfigureAwait(false);
        return lease.SharedArray();
    }

    /// <summary>
    /// The scrape's body in <paramref name="format"/>, in the buffer its collection wrote, shared
    /// with every scrape of that format that joined the same collection and held until the lease
    /// is disposed: write it, never change it, and dispose the lease when the response is written.
    /// </summary>
    /// <param name="format">The format.</param>
    /// <param name="timeout">How long to wait for the body (<see cref="Timeout.InfiniteTimeSpan"/> for ever); past it, the
    /// scrape is logged and fails, and the collection, left to run, serves the scrapes that join it before it ends.</param>
    /// <param name="cancellationToken">Cancels the wait (not the collection).</param>
    /// <exception cref="TimeoutException">The body was not ready within <paramref name="timeout"/>.</exception>
    /// <exception cref="ObjectDisposedException">This scraper was disposed before or while waiting, or the <c>MeterProvider</c>'s exporter is.</exception>
    /// <exception cref="InvalidOperationException">The collection failed.</exception>
    /// <exception cref="OperationCanceledException"><paramref name="cancellationToken"/> was canceled while waiting.</exception>
    internal Task<ScrapeBodyLease> LeaseAsync(ExpositionFormat format, TimeSpan timeout, CancellationToken cancellationToken) =>
        LeaseAsync(format, EscapingScheme.Underscores, filter: null, timeout, cancellationToken);

    /// <summary>The scrape in <paramref name="format"/> with the names of <paramref name="escaping"/> (<see cref="ScrapeNegotiation.Negotiate(string?, PrometheusNameTranslation)"/>), a new array the caller owns. For tests.</summary>
    internal async Task<byte[]> ScrapeAsync(ExpositionFormat format, EscapingScheme escaping, CancellationToken cancellationToken = default)
    {
        using ScrapeBodyLease lease = await LeaseAsync(format, escaping, filter: null, Timeout.InfiniteTimeSpan, cancellationToken).ConfigureAwait(false);
        return lease.Body.ToArray();
    }

    /// <summary>The most distinct <c>name[]</c> filters whose collections are kept apart and coalesced; past them, each scrape collects alone.</summary>
    internal const int MaxFilteredFormats = 32;

    /// <summary>As <see cref="LeaseAsync(ExpositionFormat, TimeSpan, CancellationToken)"/>, only the families <paramref name="filter"/> names
    /// (null for all): scrapes of one format and one filter share a collection, never another filter's.</summary>
    internal Task<ScrapeBodyLease> LeaseAsync(ExpositionFormat format, ScrapeNameFilter? filter, TimeSpan timeout, CancellationToken cancellationToken) =>
        LeaseAsync(format, EscapingScheme.Underscores, filter, timeout, cancellationToken);

    /// <summary>As <see cref="LeaseAsync(ExpositionFormat, ScrapeNameFilter?, TimeSpan, CancellationToken)"/>, its names those of
    /// <paramref name="escaping"/> (the negotiation's, <see cref="ScrapeNegotiation.Negotiate(string?, PrometheusNameTranslation)"/>):
    /// scrapes of one format and one escaping share a collection, never another's.</summary>
    internal async Task<ScrapeBodyLease> LeaseAsync(ExpositionFormat format, EscapingScheme escaping, ScrapeNameFilter? filter, TimeSpan timeout, CancellationToken cancellationToken)
    {
        CancellationToken disposing = _disposing.Token;
        ObjectDisposedException.ThrowIf(disposing.IsCancellationRequested, this);

        // Under the default translation every scheme writes the same names: one body, one collection.
        if (_nameTranslation == PrometheusNameTranslation.UnderscoreEscapingWithSuffixes)
        {
            escaping = EscapingScheme.Underscores;
        }

        // Before joining: WaitAsync returns a collection already finished even to a canceled token.
        cancellationToken.ThrowIfCancellationRequested();
        CoalescedCollection collection = FormatOf(format, escaping, filter).Coalescer.JoinOrStart();
        try
        {
            using CancellationTokenSource wait = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken, disposing);
            await collection.Completion.WaitAsync(timeout, wait.Token).ConfigureAwait(false);
            return new ScrapeBodyLease(collection);
        }
        catch (OperationCanceledException) when (disposing.IsCancellationRequested && !cancellationToken.IsCancellationRequested)
        {
            collection.Release();
            throw new ObjectDisposedException(nameof(PrometheusScraper), "The scraper was disposed while the scrape waited for its collection.");
        }
        catch (TimeoutException)
        {
            collection.Release();
            LogScrapeTimedOut(_logger, timeout.TotalSeconds);
            throw;
        }
        catch
        {
            collection.Release();
            throw;
        }
    }

    private ScrapedFormat FormatOf(ExpositionFormat format, EscapingScheme escaping, ScrapeNameFilter? filter)
    {
        if (filter is null)
        {
            return _formats[FormatIndex(format, escaping)];
        }

        if (_filtered.TryGetValue((format, escaping, filter.Key), out ScrapedFormat? kept))
        {
            return kept;
        }

        var scraped = new ScrapedFormat(format, CollectAsync, WriterOf(escaping), filter);
        return _filtered.Count < MaxFilteredFormats ? _filtered.GetOrAdd((format, escaping, filter.Key), scraped) : scraped;
    }

    /// <summary>Ends every scrape waiting with an <see cref="ObjectDisposedException"/>, and refuses later ones. Idempotent, thread-safe.</summary>
    /// <remarks>A collection running is not stopped: it finishes in the background, and its body is dropped.</remarks>
    public void Dispose() => _disposing.Cancel();

    /// <summary>One collection in <paramref name="format"/> (its names escaped with underscores, every family) into
    /// <paramref name="buffer"/>, without a coalescer: on the caller's thread, where no other collection runs and no
    /// source waits. For the allocation tests, which measure a collection on their thread.</summary>
    internal Task<ArraySegment<byte>> CollectAsync(ExpositionFormat format, byte[] buffer) =>
        CollectAsync(FormatOf(format, EscapingScheme.Underscores, filter: null), buffer);

    // One collection in one format, written into the buffer its coalescer lends and handed back
    // in it; they run one at a time, as they share the writers' scratch state.
    private async Task<ArraySegment<byte>> CollectAsync(ScrapedFormat format, byte[] buffer)
    {
        await _scrapeLock.WaitAsync().ConfigureAwait(false);
        try
        {
            long started = Stopwatch.GetTimestamp();

            // The format's writer, chosen once for the whole collection; every source writes that format only.
            ExpositionWriter output = format.Writer;
            output.Clear(buffer);
            output.NameFilter = format.Filter;
            _takenNames.Clear();
            WriteTargetInfo(output);
            foreach (IScrapeSource source in _sources)
            {
                await source.WriteAsync(output, _takenNames, CancellationToken.None).ConfigureAwait(false);
            }

            output.WriteEnd();
            _durations?.Record(format.Format, Stopwatch.GetElapsedTime(started));
            return output.Detach();
        }
        finally
        {
            _scrapeLock.Release();
        }
    }

    private void WriteTargetInfo(ExpositionWriter output)
    {
        // The names are reserved even without attributes: no other meter's family may pass for
        // the resource, under its sample's name or its OpenMetrics info family's (target).
        _takenNames.Add(ExportedNames.TargetInfoName);
        _takenNames.Add(ExportedNames.TargetInfoFamilyName);
        if (_targetInfo is not null && output.Includes(s_targetInfoNames))
        {
            output.WriteHeader(ExportedNames.TargetInfoName, ExportedKind.Info, "Target metadata");
            output.WriteSample(ExportedNames.TargetInfoName, string.Empty, _targetInfo, null, 0, 1L);
        }
    }

    /// <summary>
    /// Logs the failure of a collection that a scrape is answered 500 for, once per cause (the
    /// exception's type and message, <see cref="CallbackFailureLog"/>): the scrapes that joined it,
    /// and later ones that fail alike, write one error, not one each. Thread-safe.
    /// </summary>
    /// <param name="failure">What the collection threw.</param>
    internal void CollectionFailed(Exception failure) => _collectionFailures.Log(failure);

    [LoggerMessage(EventId = 31, Level = LogLevel.Error, Message = "A Prometheus scrape was answered 500: its collection failed with {ExceptionType}: {ExceptionMessage}. Scrapes whose collection fails alike are answered 500 too; this cause is not logged again.")]
    private static partial void LogCollectionFailed(ILogger logger, Exception exception, string exceptionType, string exceptionMessage);

    [LoggerMessage(EventId = 30, Level = LogLevel.Warning, Message = "A Prometheus scrape was answered 503: its collection took longer than the scrape timeout of {TimeoutSeconds} s. The collection runs to its end; scrapes that arrive before it ends get its body.")]
    private static partial void LogScrapeTimedOut(ILogger logger, double timeoutSeconds);
}
