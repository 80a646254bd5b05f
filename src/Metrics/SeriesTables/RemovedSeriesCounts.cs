namespace ScalableMetrics.SeriesTables;

/// <summary>
/// What the reclaim of removed series found, process-wide: the series reclaimed, those written
/// after their final export, and what those writes added (the self-metrics
/// <c>scalablemetrics_removed_series_reclaimed_total</c> and
/// <c>scalablemetrics_removed_series_late_adds_total</c>).
/// </summary>
/// <remarks>
/// "What was added" is the change of the series' count and value slots since the final export:
/// for a counter the value added, for a histogram or an operation the records (and, for an
/// operation, the ticks timed); an up-down counter's change counts by its size, and each
/// <see cref="double"/> slot that changed counts 1. Thread-safe; counted at reclaims only, never
/// on an add.
/// </remarks>
internal static class RemovedSeriesCounts
{
    private static long s_reclaimed;
    private static long s_lateSeries;
    private static long s_lateAdds;

    /// <summary>Removed series whose memory went back to the arena.</summary>
    public static long ReclaimedSeries => Volatile.Read(ref s_reclaimed);

    /// <summary>Reclaimed series written after their final export.</summary>
    public static long LateSeries => Volatile.Read(ref s_lateSeries);

    /// <summary>What those writes added (see remarks), saturating.</summary>
    public static long LateAdds => Volatile.Read(ref s_lateAdds);

    /// <summary>Counts one reclaim: what was added after the final export, and whether anything was.</summary>
    public static void Reclaimed(long late, bool written)
    {
        Interlocked.Increment(ref s_reclaimed);
        if (written)
        {
            Interlocked.Increment(ref s_lateSeries);
            long before;
            do
            {
                before = Volatile.Read(ref s_lateAdds);
            }
            while (Interlocked.CompareExchange(ref s_lateAdds, Cells.SaturatingSum.Add(before, late), before) != before);
        }
    }
}
