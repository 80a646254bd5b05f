namespace ScalableMetrics.Exporter.Listening;

/// <summary>
/// The registry that aggregates the listened instruments of the meters of one name and version:
/// its families are exported with <c>otel_scope_name</c> = <see cref="MeterName"/> (and
/// <c>otel_scope_version</c> = <see cref="MeterVersion"/>, <c>otel_scope_schema_url</c> =
/// <see cref="SchemaUrl"/>, where set), as OpenTelemetry exports that meter's.
/// </summary>
/// <param name="Registry">The registry, disposed of (dropped) with the listener.</param>
/// <param name="MeterName">The source meters' name.</param>
/// <param name="MeterVersion">The source meters' version, or null where it is null or empty (one scope).</param>
internal sealed record ListenedScope(MetricRegistry Registry, string MeterName, string? MeterVersion)
{
    /// <summary>The registry's observable instruments by name (case-insensitive, as instrument names
    /// are), each observing every listened observable instrument of that name; under its own lock.</summary>
    public Dictionary<string, ListenedObservable> Observables { get; } = new(StringComparer.OrdinalIgnoreCase);

    /// <summary>The first such meter's <c>Meter.TelemetrySchemaUrl</c>, or null: OTLP's <c>ScopeMetrics.schema_url</c>
    /// and the scrape's <c>otel_scope_schema_url</c> label
    /// (meters of one name and version with different schema URLs share the scope, and the first one's URL).</summary>
    public string? SchemaUrl { get; init; }
}
