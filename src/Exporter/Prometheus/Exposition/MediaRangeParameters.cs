using ScalableMetrics.Naming;

namespace ScalableMetrics.Exporter.Prometheus.Exposition;

/// <summary>The parameters of one media range of an <c>Accept</c> header that pick an exposition format (<see cref="ExpositionFormat.Answers"/>); each null where not given.</summary>
/// <param name="Version">The <c>version</c> parameter (<c>0.0.4</c>, <c>1.0.0</c>).</param>
/// <param name="Proto">The <c>proto</c> parameter (<c>io.prometheus.client.MetricFamily</c>).</param>
/// <param name="Encoding">The <c>encoding</c> parameter (<c>delimited</c>).</param>
/// <param name="Escaping">The <c>escaping</c> parameter as a scheme, or null where not given or not one of the four.</param>
internal readonly record struct MediaRangeParameters(string? Version, string? Proto, string? Encoding, EscapingScheme? Escaping = null);
