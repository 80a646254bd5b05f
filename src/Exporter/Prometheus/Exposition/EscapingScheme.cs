namespace ScalableMetrics.Exporter.Prometheus.Exposition;

/// <summary>
/// How a scrape asks metric and label names outside the legacy character set
/// (<c>[a-zA-Z_:][a-zA-Z0-9_:]*</c>) to be written: the <c>escaping</c> parameter of an
/// <c>Accept</c> media range and of the response's content type, as Prometheus' "UTF-8 metric
/// and label name escaping schemes" document defines it.
/// </summary>
/// <remarks>
/// Every name this library writes is legacy-valid already: the naming layer translates
/// OpenTelemetry's names to underscores (OpenTelemetry's <c>UnderscoreEscapingWithSuffixes</c>),
/// and each scheme leaves a legacy-valid name as it is (prometheus/common's
/// <c>EscapeMetricFamily</c>). So the scheme changes the content type only, never a byte of the body.
/// </remarks>
internal enum EscapingScheme
{
    /// <summary><c>underscores</c>: every character outside the legacy set becomes <c>_</c>; the default when none is asked for.</summary>
    Underscores,

    /// <summary><c>allow-utf-8</c>: names as they are, quoted where not legacy-valid.</summary>
    AllowUtf8,

    /// <summary><c>dots</c>: <c>.</c> becomes <c>_dot_</c>, <c>_</c> becomes <c>__</c>, any other character outside the legacy set <c>__</c>.</summary>
    Dots,

    /// <summary><c>values</c>: the name prefixed <c>U__</c>, <c>_</c> doubled, any other character outside the legacy set its code point in hexadecimal between underscores.</summary>
    Values,
}
