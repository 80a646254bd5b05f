namespace ScalableMetrics.Exporter.Prometheus.Scraping;

/// <summary>
/// The metric names a scrape asks for with <c>name[]=</c> on its URL, as Prometheus' client_golang
/// and client_java take them (a job's <c>params: { name[]: [...] }</c> in <c>prometheus.yml</c>):
/// only the families named are written, in every format. A family is named by its family name or by
/// any name it writes a sample under (<c>http_requests</c>, <c>http_requests_total</c>,
/// <c>latency_seconds_bucket</c>, <c>latency_seconds_count</c>, <c>_created</c>), so that the names
/// of both clients' conventions and those Prometheus stores all work; <c>target_info</c> only when named.
/// </summary>
/// <remarks>Immutable and thread-safe. Names compare ordinally, as Prometheus compares them.
/// Two filters of the same names (in any order, repeated or not) are one (<see cref="Key"/>): their
/// scrapes share a collection, coalesced as unfiltered scrapes are.</remarks>
internal sealed class ScrapeNameFilter
{
    /// <summary>The most names one filter keeps; a longer list is cut (the scrape still answers).</summary>
    public const int MaxNames = 256;

    private readonly HashSet<string> _names;

    private ScrapeNameFilter(string[] names)
    {
        _names = new HashSet<string>(names, StringComparer.Ordinal);
        Key = string.Join('\n', names);
    }

    /// <summary>The filter's names, sorted and distinct, one a line: equal for equal filters.</summary>
    public string Key { get; }

    /// <summary>The filter of <paramref name="names"/> (the <c>name[]</c> query values), or null where none is given (the whole scrape).</summary>
    /// <param name="names">The values, empty ones ignored.</param>
    public static ScrapeNameFilter? Of(IEnumerable<string?> names)
    {
        string[] distinct = [.. names.Where(static n => !string.IsNullOrEmpty(n)).Select(static n => n!).Distinct(StringComparer.Ordinal).Order(StringComparer.Ordinal).Take(MaxNames)];
        return distinct.Length == 0 ? null : new ScrapeNameFilter(distinct);
    }

    /// <summary>Whether a family that writes <paramref name="names"/> (its family and sample names) is asked for.</summary>
    public bool Includes(IReadOnlyList<string> names)
    {
        foreach (string name in names)
        {
            if (_names.Contains(name))
            {
                return true;
            }
        }

        return false;
    }

    /// <summary>Whether the family <paramref name="name"/> is asked for.</summary>
    public bool Includes(string name) => _names.Contains(name);
}
