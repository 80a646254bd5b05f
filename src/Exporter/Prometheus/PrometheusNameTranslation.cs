namespace ScalableMetrics.Exporter;

/// <summary>
/// How instrument names and tag keys become Prometheus metric and label names, under the names of
/// OpenTelemetry's Prometheus exporter specification (its <c>translation_strategy</c>, the strategies of
/// opentelemetry-collector-contrib's <c>translator/prometheus</c> and Prometheus' <c>otlp.translation_strategy</c>).
/// Whatever it says, a scraper that allows no UTF-8 names (text 0.0.4, or no <c>escaping=allow-utf-8</c>, <c>dots</c>
/// or <c>values</c> in its <c>Accept</c> header) gets the default translation's names, byte for byte.
/// </summary>
/// <remarks>
/// A UTF-8 translation changes the names only of scrapes that negotiate a scheme other than
/// <c>underscores</c>: <c>allow-utf-8</c> (Prometheus 3's default) gets OpenTelemetry's names as they
/// are (<c>http.server.request.duration_seconds</c>, label <c>http.route</c>), quoted in the text
/// formats where outside the legacy character set (<c>{"http.server.request.duration_seconds_bucket","http.route"="/a",le="0.1"} 3</c>);
/// <c>dots</c> and <c>values</c> get them escaped as Prometheus' escaping-schemes document says
/// (<c>http_dot_server_dot_request_dot_duration__seconds</c>). The registry then refuses, at creation,
/// an instrument whose names would meet another's under any of those schemes.
/// </remarks>
public enum PrometheusNameTranslation
{
    /// <summary>
    /// <c>UnderscoreEscapingWithSuffixes</c>, the default: every character outside the legacy set
    /// becomes <c>_</c>, and the unit and type suffixes are appended (<c>http_server_request_duration_seconds</c>),
    /// whatever the scraper allows. A scrape that asks for <c>allow-utf-8</c> is answered
    /// <c>escaping=underscores</c>, as OpenTelemetry .NET's exporter answers under this strategy.
    /// </summary>
    UnderscoreEscapingWithSuffixes = 0,

    /// <summary>
    /// <c>NoUTF8EscapingWithSuffixes</c>: where the scraper allows UTF-8 names, the instrument name and
    /// tag keys as they are, the unit and type suffixes appended (<c>http.server.request.duration_seconds</c>,
    /// <c>http.requests_total</c>).
    /// </summary>
    NoUTF8EscapingWithSuffixes = 1,

    /// <summary>
    /// <c>NoTranslation</c>: where the scraper allows UTF-8 names, the instrument name and tag keys as
    /// they are, without the unit suffix or <c>_ratio</c> (<c>http.server.request.duration</c>); a counter's
    /// sample keeps its <c>_total</c>, which OpenMetrics requires, so that it is stored under one name whichever format is negotiated.
    /// </summary>
    NoTranslation = 2,
}
