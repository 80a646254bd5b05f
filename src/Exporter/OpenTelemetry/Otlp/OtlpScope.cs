namespace ScalableMetrics.Exporter.OpenTelemetry.Otlp;

// STAND-IN for otlp-data's file of the same name (the lead takes theirs): the contract's shape only.

/// <summary>One instrumentation scope of the export: a registry and the meter it is published as.</summary>
internal readonly record struct OtlpScope(string Name, string? Version, MetricRegistry Registry);
