using Microsoft.Extensions.Logging;
using ScalableMetrics.Exporter.Listening;
using ScalableMetrics.Exporter.Prometheus.Exposition;

namespace ScalableMetrics.Exporter.Prometheus.Sources;

/// <summary>
/// Writes the registries of the meters a <see cref="MeterListenerHost"/> takes
/// (<c>AddMeter</c>), each as a <see cref="RegistrySource"/> with its meter's scope labels, in the
/// order of the meters' names and versions, so that a scrape's families keep their order from
/// scrape to scrape; instruments of several meters that export alike are one family
/// (<see cref="RegistrySource.WriteMerged"/>).
/// </summary>
/// <remarks>Not thread-safe: a scrape at a time (see <c>PrometheusScraper</c>).</remarks>
internal sealed class ListenedMetersSource(MeterListenerHost listened, ILogger logger) : IScrapeSource
{
    private readonly Dictionary<ListenedScope, RegistrySource> _sources = [];

    // The sources in the order of their meters' names and versions, sorted again only when a
    // meter is added: the host never drops one, so the same count is the same meters.
    private readonly List<KeyValuePair<ListenedScope, RegistrySource>> _ordered = [];
    private readonly List<RegistrySource> _orderedSources = [];

    // Their instruments by family, kept from scrape to scrape (RegistrySource.WriteMerged).
    private readonly FamilyGroups<(RegistrySource Source, Instrument Instrument, RegistrySource.Exported Exported)> _families = new();

    /// <inheritdoc/>
    public ValueTask WriteAsync(ExpositionWriter output, HashSet<string> takenNames, CancellationToken cancellationToken)
    {
        // Counted, not listed: the list is a copy, made only when a meter was added.
        if (listened.ScopeCount != _ordered.Count)
        {
            AddSources(listened.Scopes);
        }

        RegistrySource.WriteMerged(_orderedSources, _families, output, takenNames);
        return ValueTask.CompletedTask;
    }

    private void AddSources(IReadOnlyCollection<ListenedScope> scopes)
    {
        foreach (ListenedScope scope in scopes)
        {
            if (!_sources.ContainsKey(scope))
            {
                var source = new RegistrySource(scope.Registry, scope.MeterName, scope.MeterVersion, logger, scopeSchemaUrl: scope.SchemaUrl);
                _sources.Add(scope, source);
                _ordered.Add(new(scope, source));
            }
        }

        _ordered.Sort(static (a, b) =>
            StringComparer.Ordinal.Compare(a.Key.MeterName, b.Key.MeterName) is var byName && byName != 0
                ? byName
                : StringComparer.Ordinal.Compare(a.Key.MeterVersion, b.Key.MeterVersion));
        _orderedSources.Clear();
        _orderedSources.AddRange(_ordered.Select(static source => source.Value));
    }
}
