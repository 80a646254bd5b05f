using System.Runtime.CompilerServices;
using ScalableMetrics.Exporter.Listening;
using ScalableMetrics.Exporter.Prometheus.Exposition;
using ScalableMetrics.Exporter.Prometheus.Scraping;
using ScalableMetrics.Naming;

namespace ScalableMetrics.Exporter.Prometheus.Sources;

/// <summary>
/// Writes the families about the library itself (<c>ScalableMetricsOptions.ExportSelfMetrics</c>),
/// named as client libraries name their own, with the library's prefix (<see cref="SelfMetricNames"/>):
/// <list type="bullet">
/// <item><c>scalablemetrics_scrape_duration_seconds{otel_scope_name,otel_scope_version,format}</c>, gauge: the last collection of each
/// format that ended before this one (<see cref="ScrapeDurations"/>);</item>
/// <item><c>scalablemetrics_series{otel_scope_name,otel_scope_version,instrument}</c>, gauge: the
/// series each instrument of the registry and of the listened meters keeps, its overflow series
/// included, and <c>scalablemetrics_series_limit</c> with the same labels, the most it keeps before
/// new tag sets go to the overflow series (so that <c>scalablemetrics_series / scalablemetrics_series_limit</c>
/// is each instrument's fill, above 1 once it overflows);</item>
/// <item><c>scalablemetrics_instruments_overflowing{otel_scope_name,otel_scope_version}</c>, gauge:
/// the instruments of each registry whose overflow series took measurements;</item>
/// <item><c>scalablemetrics_dropped_measurements_total</c> and <c>scalablemetrics_refused_instruments_total</c>,
/// counters (with the registry's scope labels): the measurements the <c>AddMeter</c> listener dropped (<see cref="ListenerDrops"/>) and
/// the instruments it refused (<see cref="MeterListenerHost.RefusedInstruments"/>).</item>
/// </list>
/// Written through the scrape's writer, so every format carries them.
/// </summary>
/// <remarks>No instrument can export under these names: the registry refuses them
/// (<see cref="NameReservations"/>). A family of a <c>MeterProvider</c>'s meter under one of them is
/// left out, as this source writes before it. Not thread-safe: a scrape at a time.</remarks>
internal sealed class SelfMetricsSource(MetricRegistry registry, string scopeName, string? scopeVersion, MeterListenerHost? listened, ScrapeDurations durations) : IScrapeSource
{
    private readonly PrometheusTextWriter _scratch = new();

    // The families about the whole scrape carry the registry's scope labels, as every other sample
    // of the exposition carries its meter's (target_info aside).
    private readonly LabelBlock _hostLabels = LabelBlock.Create(new PrometheusTextWriter(), ScopeLabels(scopeName, scopeVersion), []);
    private readonly (ExpositionFormat Format, LabelBlock Labels)[] _formatLabels =
        [.. ExpositionFormat.All.Select(f => (f, LabelBlock.Create(new PrometheusTextWriter(), ScopeLabels(scopeName, scopeVersion), [new("format", f.Label)])))];

    // Kept from scrape to scrape, as the registries keep their instruments and scopes.
    private readonly ConditionalWeakTable<Instrument, LabelBlock> _instrumentLabels = [];
    private readonly ConditionalWeakTable<MetricRegistry, Scope> _scopes = [];
    private readonly List<Scope> _registries = [];

    /// <inheritdoc/>
    public ValueTask WriteAsync(ExpositionWriter output, HashSet<string> takenNames, CancellationToken cancellationToken)
    {
        CollectRegistries();
        WriteScrapeDurations(output, takenNames);
        WritePerInstrument(output, takenNames, SelfMetricNames.Series, "The series each instrument keeps, its overflow series included.", static (_, i) => i.SeriesCount);
        WritePerInstrument(output, takenNames, SelfMetricNames.SeriesLimit, "The series each instrument keeps before new tag sets go to its overflow series.", static (r, _) => r.MaxSeriesPerInstrument);
        WriteOverflowing(output, takenNames);
        if (listened is not null)
        {
            WriteCounter(output, takenNames, SelfMetricNames.DroppedMeasurements, "Measurements of listened meters (AddMeter) dropped: invalid values or tags.", listened.Drops.Count);
            WriteCounter(output, takenNames, SelfMetricNames.RefusedInstruments, "Instruments of listened meters (AddMeter) refused: their exported names meet another meter's instrument of another kind or unit.", listened.RefusedInstruments);
        }

        return ValueTask.CompletedTask;
    }

    // The registry first, then the listened meters' in the order of their names and versions, as the scrape writes them.
    private void CollectRegistries()
    {
        _registries.Clear();
        _registries.Add(ScopeOf(registry, scopeName, scopeVersion));
        if (listened is not null)
        {
            foreach (ListenedScope scope in listened.Scopes
                .OrderBy(static s => s.MeterName, StringComparer.Ordinal)
                .ThenBy(static s => s.MeterVersion, StringComparer.Ordinal))
            {
                _registries.Add(ScopeOf(scope.Registry, scope.MeterName, scope.MeterVersion));
            }
        }
    }

    private Scope ScopeOf(MetricRegistry of, string name, string? version) =>
        _scopes.GetValue(of, _ => new Scope(of, ScopeLabels(name, version), LabelBlock.Create(_scratch, ScopeLabels(name, version), [])));

    private static KeyValuePair<string, string>[] ScopeLabels(string name, string? version) => string.IsNullOrEmpty(version)
        ? [new(ExportedNames.ScopeNameLabel, name)]
        : [new(ExportedNames.ScopeNameLabel, name), new(ExportedNames.ScopeVersionLabel, version)];

    private void WriteScrapeDurations(ExpositionWriter output, HashSet<string> takenNames)
    {
        bool any = false;
        foreach ((ExpositionFormat format, _) in _formatLabels)
        {
            any |= !double.IsNaN(durations.LastSeconds(format));
        }

        if (!any || !Take(takenNames, SelfMetricNames.ScrapeDuration))
        {
            return;
        }

        output.WriteHeader(SelfMetricNames.ScrapeDuration, ExportedKind.Gauge, "How long the last collection of each exposition format took.", "seconds");
        foreach ((ExpositionFormat format, LabelBlock labels) in _formatLabels)
        {
            double seconds = durations.LastSeconds(format);
            if (!double.IsNaN(seconds))
            {
                output.WriteSample(SelfMetricNames.ScrapeDuration, string.Empty, labels, null, 0, seconds);
            }
        }
    }

    private void WritePerInstrument(ExpositionWriter output, HashSet<string> takenNames, string name, string help, Func<MetricRegistry, Instrument, long> value)
    {
        bool headerWritten = false;
        foreach (Scope scope in _registries)
        {
            foreach (Instrument instrument in scope.Registry.Instruments)
            {
                if (!headerWritten)
                {
                    if (!Take(takenNames, name))
                    {
                        return;
                    }

                    output.WriteHeader(name, ExportedKind.Gauge, help);
                    headerWritten = true;
                }

                output.WriteSample(name, string.Empty, InstrumentLabels(scope, instrument), null, 0, value(scope.Registry, instrument));
            }
        }
    }

    // Looked up before made: a callback capturing the scope would be a closure per instrument per scrape.
    private LabelBlock InstrumentLabels(Scope scope, Instrument instrument)
    {
        if (!_instrumentLabels.TryGetValue(instrument, out LabelBlock? labels))
        {
            labels = LabelBlock.Create(_scratch, scope.Labels, [new("instrument", instrument.Name)]);
            _instrumentLabels.AddOrUpdate(instrument, labels);
        }

        return labels;
    }

    private void WriteOverflowing(ExpositionWriter output, HashSet<string> takenNames)
    {
        if (!Take(takenNames, SelfMetricNames.InstrumentsOverflowing))
        {
            return;
        }

        output.WriteHeader(SelfMetricNames.InstrumentsOverflowing, ExportedKind.Gauge, "The instruments whose overflow series took measurements: past the series limit.");
        foreach (Scope scope in _registries)
        {
            long overflowing = 0;
            foreach (Instrument instrument in scope.Registry.Instruments)
            {
                if (scope.Registry.HasOverflowSeries(instrument))
                {
                    overflowing++;
                }
            }

            output.WriteSample(SelfMetricNames.InstrumentsOverflowing, string.Empty, scope.Block, null, 0, overflowing);
        }
    }

    private void WriteCounter(ExpositionWriter output, HashSet<string> takenNames, string family, string help, long value)
    {
        string sample = family + SelfMetricNames.TotalSuffix;
        if (!Take(takenNames, family, sample, family + "_created"))
        {
            return;
        }

        output.WriteHeader(sample, ExportedKind.Counter, help);
        output.WriteSample(sample, string.Empty, _hostLabels, null, 0, value);
    }

    // Reserves the names for this scrape, unless an earlier source wrote one (not expected: the
    // registries refuse them), in which case the family is left out rather than written twice.
    private static bool Take(HashSet<string> takenNames, params string[] names)
    {
        if (TakenNames.AnyOf(names, takenNames))
        {
            return false;
        }

        takenNames.UnionWith(names);
        return true;
    }

    /// <summary>One registry and its scope labels, as a block (its own samples) and as pairs (its instruments').</summary>
    private sealed record Scope(MetricRegistry Registry, KeyValuePair<string, string>[] Labels, LabelBlock Block);
}
