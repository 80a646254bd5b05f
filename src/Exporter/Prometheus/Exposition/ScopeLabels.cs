using ScalableMetrics.Naming;

namespace ScalableMetrics.Exporter.Prometheus.Exposition;

/// <summary>
/// The labels that name a sample's instrumentation scope (its meter), made here for every source
/// of a scrape: the registry's, the listened meters', the self-metrics' and the <c>MeterProvider</c>'s
/// other meters' (<c>UseOpenTelemetry()</c>). As OpenTelemetry's Prometheus compatibility
/// specification ("Instrumentation Scope") writes them: <c>otel_scope_name</c>;
/// <c>otel_scope_version</c> and <c>otel_scope_schema_url</c> where the meter has them; then each
/// scope attribute as <c>otel_scope_&lt;key&gt;</c>, named and merged by the rules of a series'
/// tags (<see cref="LabelBlock.MergedLabels"/>), and dropped where it would be one of the three
/// labels before it (a meter tag <c>name</c>, <c>version</c> or <c>schema_url</c>).
/// </summary>
/// <remarks>Thread-safe (no state).</remarks>
internal static class ScopeLabels
{
    // An attribute's label: its key after the prefix, sanitized as a label name.
    private static readonly Func<string, string> s_attributeLabelName =
        static key => ExportedNames.SanitizeLabelName(ExportedNames.ScopeLabelPrefix + key);

    /// <summary>The scope labels of a meter: names valid, values printed, those with an empty value left out.</summary>
    /// <param name="name">The meter's name: <c>otel_scope_name</c>.</param>
    /// <param name="version">Its version (<c>otel_scope_version</c>), or null or empty for none.</param>
    /// <param name="schemaUrl">Its schema URL, <c>Meter.TelemetrySchemaUrl</c> (<c>otel_scope_schema_url</c>), or null or empty for none.</param>
    /// <param name="attributes">Its attributes (a meter's tags), in any order, or null for none.</param>
    /// <returns>The labels, in the order written: name, version, schema URL, then the attributes' by label name.</returns>
    public static KeyValuePair<string, string>[] Of(string name, string? version, string? schemaUrl = null, IEnumerable<KeyValuePair<string, object?>>? attributes = null)
    {
        var labels = new List<KeyValuePair<string, string>>(3);
        Add(labels, ExportedNames.ScopeNameLabel, name);
        Add(labels, ExportedNames.ScopeVersionLabel, version);
        Add(labels, ExportedNames.ScopeSchemaUrlLabel, schemaUrl);
        if (attributes is not null)
        {
            foreach (KeyValuePair<string, string> label in LabelBlock.MergedLabels(attributes, s_attributeLabelName))
            {
                // The specification: an attribute that would conflict with these MUST be dropped,
                // whether or not the meter has the label (a sample must never carry one twice).
                if (label.Key is not (ExportedNames.ScopeNameLabel or ExportedNames.ScopeVersionLabel or ExportedNames.ScopeSchemaUrlLabel))
                {
                    Add(labels, label.Key, label.Value);
                }
            }
        }

        return [.. labels];
    }

    // Left out where empty, as a label block leaves out an empty value: so two scopes' labels are
    // equal exactly when a sample would carry the same.
    private static void Add(List<KeyValuePair<string, string>> labels, string name, string? value)
    {
        if (!string.IsNullOrEmpty(value))
        {
            labels.Add(new(name, value));
        }
    }
}
