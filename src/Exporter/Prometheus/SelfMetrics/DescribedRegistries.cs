using System.Runtime.CompilerServices;
using ScalableMetrics.Exporter.Listening;
using ScalableMetrics.Instruments.Observables;

namespace ScalableMetrics.Exporter.Prometheus.SelfMetrics;

/// <summary>
/// The registries the self-metrics describe, in the order a scrape writes them: the hosted
/// registry, then the listened meters' (<c>AddMeter</c>) in the order of their names and versions;
/// and a measurement per instrument or per registry, tagged with the registry's scope
/// (<see cref="SelfMetricTags.ScopeName"/>, <see cref="SelfMetricTags.ScopeVersion"/>) and, per
/// instrument, its name (<see cref="SelfMetricTags.Instrument"/>).
/// </summary>
/// <remarks>Thread-safe: the self-metrics' callbacks may run at once (a scrape's collection and an
/// OTLP export's), and each reads snapshots of the registries' instruments and of the listened
/// scopes. The registry of the self-metrics is not among them, as it never was.</remarks>
internal sealed class DescribedRegistries
{
    private readonly MetricRegistry _hosted;
    private readonly KeyValuePair<string, object?>[] _hostedTags;
    private readonly MeterListenerHost? _listened;

    // Kept from collection to collection, as the registries keep their instruments and scopes.
    private readonly ConditionalWeakTable<ListenedScope, KeyValuePair<string, object?>[]> _listenedTags = [];
    private readonly ConditionalWeakTable<Instrument, KeyValuePair<string, object?>[]> _instrumentTags = [];

    // The listened scopes in name and version order with their tags, and how many scopes the
    // listener had when they were sorted: made again only when a scope is added (scopes are never
    // removed), not at every callback of every collection. Replaced whole, so that callbacks
    // running at once (a scrape's, an OTLP export's) each read one complete array.
    private (MetricRegistry Registry, KeyValuePair<string, object?>[] Scope)[] _sortedListened = [];
    private int _sortedScopeCount = -1;

    /// <summary>Describes <paramref name="hosted"/> under its scope, and the registries <paramref name="listened"/> makes.</summary>
    /// <param name="hosted">The hosted registry.</param>
    /// <param name="scopeName">Its scope's name.</param>
    /// <param name="scopeVersion">Its scope's version, or null.</param>
    /// <param name="listened">The listener of the <c>AddMeter</c> meters, or null for none.</param>
    public DescribedRegistries(MetricRegistry hosted, string scopeName, string? scopeVersion, MeterListenerHost? listened)
    {
        _hosted = hosted;
        _hostedTags = ScopeTags(scopeName, scopeVersion);
        _listened = listened;
    }

    /// <summary>Reports one value per instrument of every registry described, <paramref name="value"/>'s, tagged with its scope and name.</summary>
    /// <param name="observations">Where the values go.</param>
    /// <param name="value">The instrument's value, given its registry.</param>
    public void PerInstrument(Observations<long> observations, Func<MetricRegistry, Instrument, long> value)
    {
        PerInstrumentOf(observations, value, _hosted, _hostedTags);
        if (_listened is not null)
        {
            foreach ((MetricRegistry registry, KeyValuePair<string, object?>[] scope) in SortedListened(_listened))
            {
                PerInstrumentOf(observations, value, registry, scope);
            }
        }
    }

    /// <summary>Reports one value per registry described, <paramref name="value"/>'s, tagged with its scope.</summary>
    /// <param name="observations">Where the values go.</param>
    /// <param name="value">The registry's value.</param>
    public void PerRegistry(Observations<long> observations, Func<MetricRegistry, long> value)
    {
        observations.Add(value(_hosted), _hostedTags);
        if (_listened is not null)
        {
            foreach ((MetricRegistry registry, KeyValuePair<string, object?>[] scope) in SortedListened(_listened))
            {
                observations.Add(value(registry), scope);
            }
        }
    }

    private void PerInstrumentOf(Observations<long> observations, Func<MetricRegistry, Instrument, long> value, MetricRegistry registry, KeyValuePair<string, object?>[] scope)
    {
        foreach (Instrument instrument in registry.CollectedInstruments)
        {
            observations.Add(value(registry, instrument), InstrumentTags(instrument, scope));
        }
    }

    private (MetricRegistry Registry, KeyValuePair<string, object?>[] Scope)[] SortedListened(MeterListenerHost listened)
    {
        int count = listened.ScopeCount;
        if (count == Volatile.Read(ref _sortedScopeCount))
        {
            return Volatile.Read(ref _sortedListened);
        }

        (MetricRegistry, KeyValuePair<string, object?>[])[] sorted = [.. listened.Scopes
            .OrderBy(static s => s.MeterName, StringComparer.Ordinal)
            .ThenBy(static s => s.MeterVersion, StringComparer.Ordinal)
            .Select(scope => (scope.Registry, TagsOf(scope)))];
        Volatile.Write(ref _sortedListened, sorted);
        Volatile.Write(ref _sortedScopeCount, count);
        return sorted;
    }

    private KeyValuePair<string, object?>[] TagsOf(ListenedScope scope)
    {
        if (!_listenedTags.TryGetValue(scope, out KeyValuePair<string, object?>[]? tags))
        {
            tags = ScopeTags(scope.MeterName, scope.MeterVersion);
            _listenedTags.AddOrUpdate(scope, tags);
        }

        return tags;
    }

    // Looked up before made: a callback capturing the scope would be a closure per instrument per collection.
    private KeyValuePair<string, object?>[] InstrumentTags(Instrument instrument, KeyValuePair<string, object?>[] scope)
    {
        if (!_instrumentTags.TryGetValue(instrument, out KeyValuePair<string, object?>[]? tags))
        {
            tags = [.. scope, new(SelfMetricTags.Instrument, instrument.Name)];
            _instrumentTags.AddOrUpdate(instrument, tags);
        }

        return tags;
    }

    // No version tag where the scope has none, as the scrape writes no otel_scope_version then.
    private static KeyValuePair<string, object?>[] ScopeTags(string name, string? version) => string.IsNullOrEmpty(version)
        ? [new(SelfMetricTags.ScopeName, name)]
        : [new(SelfMetricTags.ScopeName, name), new(SelfMetricTags.ScopeVersion, version)];
}
