using ScalableMetrics.Exporter.Prometheus.SelfMetrics;

namespace ScalableMetrics.Exporter.OpenTelemetry.Otlp.Encoding;

/// <summary>
/// One registry an OTLP export reads and the instrumentation scope it goes out under
/// (<c>ScopeMetrics.scope</c>): the hosted registry with <see cref="ScalableMetricsOptions.MeterName"/>
/// and <see cref="ScalableMetricsOptions.MeterVersion"/>, one listened meter's registry
/// (<see cref="Listening.ListenedScope"/>) with that meter's name and version, or the self-metrics'
/// registry under the hosted registry's scope (<see cref="Of(SelfMetricsRegistry)"/>).
/// </summary>
/// <param name="Name">The scope's name (the meter's name); not empty.</param>
/// <param name="Version">The scope's version, or null.</param>
/// <param name="Registry">The registry whose instruments go out under the scope.</param>
/// <param name="SchemaUrl">The scope's <c>schema_url</c> (the meter's <c>Meter.TelemetrySchemaUrl</c>), or null for none.</param>
internal readonly record struct OtlpScope(string Name, string? Version, MetricRegistry Registry, string? SchemaUrl = null)
{
    /// <summary>The scope of every registry <paramref name="host"/> has made so far (one per listened meter name and version).</summary>
    /// <param name="host">The listener of <see cref="ScalableMetricsOptions.AddMeter"/>'s meters.</param>
    /// <returns>One scope per listened meter name and version, in no set order.</returns>
    public static IEnumerable<OtlpScope> Of(Listening.MeterListenerHost host) =>
        host.Scopes.Select(static scope => new OtlpScope(scope.MeterName, scope.MeterVersion, scope.Registry, scope.SchemaUrl));

    /// <summary>The scope of the self-metrics' registry: the hosted registry's name and version, a
    /// second <c>ScopeMetrics</c> of that scope, whose series name the scope they describe by attributes
    /// (<see cref="SelfMetricTags.ScopeName"/>, <see cref="SelfMetricTags.ScopeVersion"/>).</summary>
    /// <param name="self">The self-metrics.</param>
    /// <returns>Its scope.</returns>
    public static OtlpScope Of(SelfMetricsRegistry self) => new(self.ScopeName, self.ScopeVersion, self.Registry);
}
