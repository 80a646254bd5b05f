namespace ScalableMetrics.Naming;

/// <summary>
/// The families a scrape writes about the library itself (the exporter's self-metrics), named as
/// Prometheus client libraries name their own (client_golang's <c>promhttp_</c>, prometheus-net's
/// <c>prometheus_net_</c>): the library's name as a prefix. Every one of their names (family,
/// samples, OpenMetrics' <c>_created</c>) is reserved here, below the registry, so that no
/// instrument exports under one (<see cref="NameReservations"/>), whether the self-metrics are
/// written or turned off; but those of the registry the library makes for them, the only one
/// created with the self-metric names allowed.
/// </summary>
internal static class SelfMetricNames
{
    /// <summary>What every self-metric's name starts with.</summary>
    public const string Prefix = "scalablemetrics_";

    /// <summary>Gauge, seconds: how long the last collection of each format took (label <c>format</c>).</summary>
    public const string ScrapeDuration = Prefix + "scrape_duration_seconds";

    /// <summary>Gauge: the series an instrument keeps, its overflow series included (labels: scope, <c>instrument</c>).</summary>
    public const string Series = Prefix + "series";

    /// <summary>Gauge: the most series an instrument keeps before new tag sets go to its overflow series.</summary>
    public const string SeriesLimit = Prefix + "series_limit";

    /// <summary>Gauge: the instruments of a registry whose overflow series took measurements (labels: scope).</summary>
    public const string InstrumentsOverflowing = Prefix + "instruments_overflowing";

    /// <summary>Counter family, process-wide: the restartable adds that went to an overflow region (sample <c>_total</c>).</summary>
    public const string OverflowRegionAdds = Prefix + "overflow_region_adds";

    /// <summary>Counter family: a registry's removed series whose memory was reclaimed (sample <c>_total</c>).</summary>
    public const string RemovedSeriesReclaimed = Prefix + "removed_series_reclaimed";

    /// <summary>Counter family: what was added to a registry's removed series after their last export (sample <c>_total</c>).</summary>
    public const string RemovedSeriesLateAdds = Prefix + "removed_series_late_adds";

    /// <summary>Counter family: the measurements the <c>AddMeter</c> listener dropped (sample <c>_total</c>).</summary>
    public const string DroppedMeasurements = Prefix + "dropped_measurements";

    /// <summary>Counter family: the instruments the <c>AddMeter</c> listener refused to listen to (sample <c>_total</c>).</summary>
    public const string RefusedInstruments = Prefix + "refused_instruments";

    /// <summary>The suffix of a counter's sample.</summary>
    public const string TotalSuffix = "_total";

    // Each family's name and every sample name a format may write for it: a counter's _total and
    // _created, and the family name OpenMetrics gives it.
    private static readonly HashSet<string> s_all = new(StringComparer.Ordinal)
    {
        ScrapeDuration,
        Series,
        SeriesLimit,
        InstrumentsOverflowing,
        OverflowRegionAdds,
        OverflowRegionAdds + TotalSuffix,
        OverflowRegionAdds + "_created",
        RemovedSeriesReclaimed,
        RemovedSeriesReclaimed + TotalSuffix,
        RemovedSeriesReclaimed + "_created",
        RemovedSeriesLateAdds,
        RemovedSeriesLateAdds + TotalSuffix,
        RemovedSeriesLateAdds + "_created",
        DroppedMeasurements,
        DroppedMeasurements + TotalSuffix,
        DroppedMeasurements + "_created",
        RefusedInstruments,
        RefusedInstruments + TotalSuffix,
        RefusedInstruments + "_created",
    };

    /// <summary>Whether a self-metric family writes <paramref name="exportedName"/>.</summary>
    public static bool Contains(string exportedName) => s_all.Contains(exportedName);
}
