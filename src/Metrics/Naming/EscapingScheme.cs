namespace ScalableMetrics.Naming;

/// <summary>
/// How a scrape asks metric and label names outside the legacy character set
/// (<c>[a-zA-Z_:][a-zA-Z0-9_:]*</c>) to be written: the <c>escaping</c> parameter of an
/// <c>Accept</c> media range and of the response's content type, as Prometheus' "UTF-8 metric
/// and label name escaping schemes" document defines it.
/// </summary>
/// <remarks>
/// <para>Under the default translation (OpenTelemetry's <c>UnderscoreEscapingWithSuffixes</c>) every
/// name is legacy-valid already, and each scheme leaves a legacy-valid name as it is
/// (prometheus/common's <c>EscapeMetricFamily</c>): the scheme changes the content type only.</para>
/// <para>Under a UTF-8 translation the names are OpenTelemetry's (<c>http.server.request.duration_seconds</c>),
/// and each scheme but <see cref="Underscores"/> writes them as <see cref="NameEscaping.Escape"/> escapes them;
/// <see cref="Underscores"/> writes the default translation's names, byte for byte what a scraper that
/// allows no UTF-8 has always read (<see cref="ExportedFamily.In"/>).</para>
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

/// <summary>The schemes' names as the <c>escaping</c> parameter writes them. Thread-safe (no state).</summary>
internal static class EscapingNames
{
    /// <summary>The scheme's name: <c>underscores</c>, <c>allow-utf-8</c>, <c>dots</c> or <c>values</c>.</summary>
    public static string Of(EscapingScheme scheme) => scheme switch
    {
        EscapingScheme.AllowUtf8 => "allow-utf-8",
        EscapingScheme.Dots => "dots",
        EscapingScheme.Values => "values",
        _ => "underscores",
    };
}
