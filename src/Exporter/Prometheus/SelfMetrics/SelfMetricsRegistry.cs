using ScalableMetrics.Exporter.Listening;
using ScalableMetrics.Exporter.Prometheus.Exposition;
using ScalableMetrics.Exporter.Prometheus.Scraping;
using ScalableMetrics.Instruments.Observables;
using ScalableMetrics.Naming;

namespace ScalableMetrics.Exporter.Prometheus.SelfMetrics;

/// <summary>
/// The library's own metrics (<c>ScalableMetricsOptions.ExportSelfMetrics</c>) as observable
/// instruments of a registry the library makes for itself, under the hosted registry's scope, so
/// that every exporter that reads registries carries them as it carries any other: the Prometheus
/// scrape (a <c>RegistrySource</c> of its own) and OTLP (a scope of its own). Named as client
/// libraries name their own, with the library's prefix (<see cref="SelfMetricNames"/>):
/// <list type="bullet">
/// <item><c>scalablemetrics.scrape.duration</c> (s), gauge, tag <c>format</c>: the last collection of
/// each format that ended (<see cref="ScrapeDurations"/>); a scrape reports the one before it;</item>
/// <item><c>scalablemetrics.series</c>, gauge, tags <c>scope.name</c>, <c>scope.version</c>,
/// <c>instrument</c>: the series each instrument of the hosted registry and of the listened meters
/// keeps, its overflow series included; <c>scalablemetrics.series.limit</c>, the same tags: the most
/// it keeps before new tag sets go to the overflow series (so that <c>series / series_limit</c> is
/// each instrument's fill, above 1 once it overflows);</item>
/// <item><c>scalablemetrics.instruments.overflowing</c>, gauge, tags <c>scope.name</c>,
/// <c>scope.version</c>: the instruments of each registry whose overflow series took measurements;</item>
/// <item><c>scalablemetrics.overflow_region.adds</c>, counter, process-wide: the adds of the restartable
/// write path that went to a series' overflow region, atomically, because the thread's id had no
/// region of its own (a processor brought online or allowed after start) or the kind of add is
/// unavailable (<see cref="MetricRegistry.OverflowRegionAddCount"/>; the start-up log line, event 41, says why
/// the regions are what they are): exact, but contended, so a count that keeps growing is a
/// contention cliff to look at;</item>
/// <item><c>scalablemetrics.removed_series.reclaimed</c> and <c>scalablemetrics.removed_series.late_adds</c>,
/// counters, tags <c>scope.name</c>, <c>scope.version</c>: per registry, the removed series whose
/// memory went back to the arena (a gauge's: was collected), and what was added to removed series
/// after their last export, found at that reclaim (<see cref="MetricRegistry.RemovedSeriesLateAdds"/>;
/// a gauge's series counts 1 where it was set after it to another value): a bound handle kept past
/// its series' removal, or a record that found the series just before it left;</item>
/// <item>with a listener, <c>scalablemetrics.dropped.measurements</c> and
/// <c>scalablemetrics.refused.instruments</c>, counters: the measurements the <c>AddMeter</c>
/// listener dropped (<see cref="ListenerDrops"/>) and the instruments it refused.</item>
/// </list>
/// A scrape writes the scope tags as the series' <c>otel_scope_name</c> and <c>otel_scope_version</c>
/// (<c>SelfMetricLabels</c>), so that the exposition reads as when they were written by hand.
/// </summary>
/// <remarks>Thread-safe: the callbacks run at each collection of any exporter, possibly at once,
/// and read only what is safe to read meanwhile (<see cref="DescribedRegistries"/>, <see cref="ScrapeDurations"/>,
/// the listener's counts).</remarks>
internal sealed class SelfMetricsRegistry
{
    // Each format's tag, by its id, made once: a report copies nothing of them.
    private static readonly KeyValuePair<string, object?>[][] s_formatTags =
        [.. ExpositionFormat.All.OrderBy(static f => (int)f.Id).Select(static f => new[] { new KeyValuePair<string, object?>(SelfMetricTags.Format, f.Label) })];

    private readonly DescribedRegistries _described;

    /// <summary>Makes the registry of the self-metrics describing <paramref name="hosted"/> and the registries <paramref name="listened"/> makes.</summary>
    /// <param name="hosted">The hosted registry.</param>
    /// <param name="scopeName">Its scope's name, which the self-metrics go out under as well; not empty.</param>
    /// <param name="scopeVersion">Its scope's version, or null.</param>
    /// <param name="listened">The listener of the <c>AddMeter</c> meters, or null: no listener families then.</param>
    /// <exception cref="ArgumentNullException"><paramref name="hosted"/> or <paramref name="scopeName"/> is null.</exception>
    /// <exception cref="ArgumentException"><paramref name="scopeName"/> is empty or white space.</exception>
    public SelfMetricsRegistry(MetricRegistry hosted, string scopeName, string? scopeVersion, MeterListenerHost? listened)
    {
        ArgumentNullException.ThrowIfNull(hosted);
        ArgumentException.ThrowIfNullOrWhiteSpace(scopeName);
        ScopeName = scopeName;
        ScopeVersion = scopeVersion;
        _described = new DescribedRegistries(hosted, scopeName, scopeVersion, listened);

        // A series per instrument of every registry, however many: never folded into an overflow
        // series, and no instrument name or meter name too long for a tag.
        Registry = new MetricRegistry(new MetricRegistryOptions { MaxSeriesPerInstrument = int.MaxValue, MaxTagValueLength = int.MaxValue }, selfMetricNamesAllowed: true);

        // Created in the order a scrape writes them.
        Registry.CreateObservableGauge<double>("scalablemetrics.scrape.duration", ObserveDurations, "s", "How long the last collection of each exposition format took.");
        Registry.CreateObservableGauge<long>("scalablemetrics.series", o => _described.PerInstrument(o, static (_, i) => i.SeriesCount), "{series}", "The series each instrument keeps, its overflow series included.");
        Registry.CreateObservableGauge<long>("scalablemetrics.series.limit", o => _described.PerInstrument(o, static (_, i) => i.MaxSeries), "{series}", "The series each instrument keeps before new tag sets go to its overflow series.");
        Registry.CreateObservableGauge<long>("scalablemetrics.instruments.overflowing", o => _described.PerRegistry(o, CountOverflowing), "{instrument}", "The instruments whose overflow series took measurements: past the series limit.");
        Registry.CreateObservableCounter<long>("scalablemetrics.overflow_region.adds", static o => o.Add(MetricRegistry.OverflowRegionAddCount, []), "{add}", "Adds that found no region of their own (a processor outside the partitions chosen at start) and went atomically to the shared overflow region: exact, but contended.");
        Registry.CreateObservableCounter<long>("scalablemetrics.removed_series.reclaimed", o => _described.PerRegistry(o, static r => r.RemovedSeriesReclaimed), "{series}", "Removed series whose memory went back to the arena once nothing could write them.");
        Registry.CreateObservableCounter<long>("scalablemetrics.removed_series.late_adds", o => _described.PerRegistry(o, static r => r.RemovedSeriesLateAdds), "{add}", "What was added to removed series after their last export (a counter's value, a histogram's records, 1 for a gauge set to another value), found at their reclaim: counted here, not exported.");
        if (listened is not null)
        {
            Registry.CreateObservableCounter<long>("scalablemetrics.dropped.measurements", o => o.Add(listened.Drops.Count, []), "{measurement}", "Measurements of listened meters (AddMeter) dropped: invalid values or tags.");
            Registry.CreateObservableCounter<long>("scalablemetrics.refused.instruments", o => o.Add(listened.RefusedInstruments, []), "{instrument}", "Instruments of listened meters (AddMeter) refused: their exported names meet another meter's instrument of another kind or unit.");
        }
    }

    /// <summary>The registry of the self-metrics: its observable instruments only, read by calling their callbacks.</summary>
    public MetricRegistry Registry { get; }

    /// <summary>The scope the self-metrics go out under: the hosted registry's name.</summary>
    public string ScopeName { get; }

    /// <summary>The scope's version, or null for none.</summary>
    public string? ScopeVersion { get; }

    /// <summary>Where the scraper records how long each collection took, which the scrape duration reports.</summary>
    public ScrapeDurations Durations { get; } = new();

    // A format no collection of which has ended yet has no series, as it had no sample.
    private void ObserveDurations(Observations<double> observations)
    {
        foreach (ExpositionFormat format in ExpositionFormat.All)
        {
            double seconds = Durations.LastSeconds(format);
            if (!double.IsNaN(seconds))
            {
                observations.Add(seconds, s_formatTags[(int)format.Id]);
            }
        }
    }

    private static long CountOverflowing(MetricRegistry registry)
    {
        long overflowing = 0;
        foreach (Instrument instrument in registry.CollectedInstruments)
        {
            if (registry.HasOverflowSeries(instrument))
            {
                overflowing++;
            }
        }

        return overflowing;
    }
}
