namespace ScalableMetrics.Exporter.Prometheus.Sources;

/// <summary>The check every source makes before writing a family: whether the scrape already wrote one of its names.</summary>
internal static class TakenNames
{
    /// <summary>Whether any of <paramref name="names"/> is in <paramref name="taken"/>.</summary>
    /// <remarks>A loop, not LINQ's <c>Any</c>: it runs for every family of every scrape, and <c>Any(taken.Contains)</c> makes a delegate each time.</remarks>
    public static bool AnyOf(IReadOnlyList<string> names, HashSet<string> taken)
    {
        for (int i = 0; i < names.Count; i++)
        {
            if (taken.Contains(names[i]))
            {
                return true;
            }
        }

        return false;
    }

    /// <summary>Adds <paramref name="names"/> to <paramref name="taken"/>.</summary>
    /// <remarks>A loop, not <see cref="HashSet{T}.UnionWith"/>: it runs for every family of every
    /// scrape, and <c>UnionWith</c> takes the names as an enumerable, an enumerator each time.</remarks>
    public static void Take(IReadOnlyList<string> names, HashSet<string> taken)
    {
        for (int i = 0; i < names.Count; i++)
        {
            taken.Add(names[i]);
        }
    }
}
