using ScalableMetrics.Exporter.Prometheus.Exposition;
using ScalableMetrics.Exporter.Prometheus.SelfMetrics;
using ScalableMetrics.Naming;

namespace ScalableMetrics.Exporter.Prometheus.Sources;

/// <summary>
/// The labels of a self-metrics series (<see cref="SelfMetricsRegistry"/>): one that describes
/// another registry's instrument or the registry itself carries that registry's scope as its
/// <c>otel_scope_name</c> and <c>otel_scope_version</c> (from its tags <see cref="SelfMetricTags.ScopeName"/>
/// and <see cref="SelfMetricTags.ScopeVersion"/>, which are not written as labels of their own);
/// any other carries the self-metrics' own scope, as every series does.
/// </summary>
/// <remarks>So the scrape writes the self-metrics as it wrote them before they were instruments
/// (<c>scalablemetrics_series{otel_scope_name="listened.meter",instrument="x"}</c>), while OTLP,
/// whose scope is the message's, carries the described scope as attributes. Thread-safe (no state).</remarks>
internal static class SelfMetricLabels
{
    /// <summary>Renders the labels of a series of <paramref name="tags"/>.</summary>
    /// <param name="scratch">Where the block is rendered (see <see cref="LabelBlock.Create(PrometheusTextWriter, ReadOnlySpan{KeyValuePair{string, string}}, IEnumerable{KeyValuePair{string, object?}})"/>).</param>
    /// <param name="ownScope">The self-metrics' scope labels.</param>
    /// <param name="tags">The series' tags.</param>
    /// <param name="escaping">The escaping of the scrape's names (<see cref="LabelBlock.Create(PrometheusTextWriter, ReadOnlySpan{KeyValuePair{string, string}}, IEnumerable{KeyValuePair{string, object?}}, EscapingScheme)"/>).</param>
    /// <returns>The series' label block.</returns>
    public static LabelBlock Create(PrometheusTextWriter scratch, KeyValuePair<string, string>[] ownScope, TagSet tags, EscapingScheme escaping = EscapingScheme.Underscores)
    {
        string? name = null;
        string? version = null;
        var rest = new List<KeyValuePair<string, object?>>(tags.Count);
        foreach (KeyValuePair<string, object?> tag in tags)
        {
            switch (tag.Key)
            {
                case SelfMetricTags.ScopeName:
                    name = ExportedNames.FormatLabelValue(tag.Value);
                    break;
                case SelfMetricTags.ScopeVersion:
                    version = ExportedNames.FormatLabelValue(tag.Value);
                    break;
                default:
                    rest.Add(tag);
                    break;
            }
        }

        if (name is null)
        {
            return LabelBlock.Create(scratch, ownScope, tags, escaping);
        }

        return LabelBlock.Create(scratch, ScopeLabels.Of(name, version), rest, escaping);
    }
}
