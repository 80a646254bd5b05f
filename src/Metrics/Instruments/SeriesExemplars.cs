namespace ScalableMetrics.Instruments;

/// <summary>The exemplar half of a read into kept arrays (<see cref="SeriesReadScratch"/>).</summary>
internal static class SeriesExemplars
{
    /// <summary>
    /// Reads each series' newest exemplar into <paramref name="scratch"/>, before its values are
    /// read, so that every exemplar's add is in the value read after it (as <c>Collect()</c> does).
    /// </summary>
    /// <returns>Whether any series keeps exemplars (where none does, nothing is written); a series that keeps none reads null.</returns>
    public static bool ReadNewest<TSeries>(ReadOnlySpan<TSeries> series, SeriesReadScratch scratch)
        where TSeries : PartitionedSeries
    {
        Exemplar?[]? exemplars = null;
        for (int i = 0; i < series.Length; i++)
        {
            if (series[i].Exemplars is { } reservoir)
            {
                if (exemplars is null)
                {
                    exemplars = scratch.ExemplarsFor(series.Length);
                    exemplars.AsSpan(0, i).Clear();
                }

                exemplars[i] = reservoir.ReadNewest(0);
            }
            else if (exemplars is not null)
            {
                exemplars[i] = null;
            }
        }

        return exemplars is not null;
    }
}
