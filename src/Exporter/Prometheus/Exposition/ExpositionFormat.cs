using System.Collections.Immutable;
using ScalableMetrics.Naming;

namespace ScalableMetrics.Exporter.Prometheus.Exposition;

/// <summary>
/// Everything about one exposition format in one place, as prometheus/common's <c>expfmt.Format</c>
/// and client_java's <c>ExpositionFormatWriter</c> keep it: the media ranges of an <c>Accept</c>
/// header it answers (<see cref="Answers"/>), its content type, the label the self-metrics give it,
/// and its writer (<see cref="CreateWriter(bool)"/>), which keeps the format's per-series caches.
/// One instance per format (<see cref="Text"/>, <see cref="OpenMetrics"/>, <see cref="Protobuf"/>),
/// compared by reference; immutable and thread-safe.
/// </summary>
internal sealed class ExpositionFormat
{
    /// <summary>The Prometheus text exposition format: <c>text/plain</c> of version <c>0.0.4</c>, <c>1.0.0</c> or none, <c>text/*</c> and <c>*/*</c>.
    /// Version 1.0.0 differs from 0.0.4 only in that it may quote names outside the legacy character set, which a scrape
    /// writes only where it allows UTF-8 names (<see cref="EscapingScheme"/>); the writer is the same.</summary>
    public static readonly ExpositionFormat Text = new(
        PrometheusExpositionFormat.Text,
        PrometheusScraper.ContentType,
        "text",
        static _ => new TextFormatWriter(),
        static (mediaType, parameters) =>
            (mediaType.Equals("text/plain", StringComparison.OrdinalIgnoreCase) && parameters.Version is null or "0.0.4" or "1.0.0")
            || mediaType is "*/*"
            || mediaType.Equals("text/*", StringComparison.OrdinalIgnoreCase));

    /// <summary>OpenMetrics 1.0: <c>application/openmetrics-text</c> of version <c>1.0.0</c> or none.</summary>
    public static readonly ExpositionFormat OpenMetrics = new(
        PrometheusExpositionFormat.OpenMetrics,
        PrometheusScraper.OpenMetricsContentType,
        "openmetrics",
        static createdSamples => new OpenMetricsWriter(createdSamples),
        static (mediaType, parameters) =>
            mediaType.Equals("application/openmetrics-text", StringComparison.OrdinalIgnoreCase) && parameters.Version is null or "1.0.0");

    /// <summary>
    /// Prometheus' protobuf exposition: <c>application/vnd.google.protobuf</c> with
    /// <c>proto=io.prometheus.client.MetricFamily</c> and <c>encoding=delimited</c>; the text form
    /// of the messages (<c>encoding=text</c>, <c>compact-text</c>) is not served.
    /// </summary>
    public static readonly ExpositionFormat Protobuf = new(
        PrometheusExpositionFormat.Protobuf,
        PrometheusScraper.ProtobufContentType,
        "protobuf",
        static _ => new ProtobufWriter(),
        static (mediaType, parameters) =>
            mediaType.Equals("application/vnd.google.protobuf", StringComparison.OrdinalIgnoreCase)
            && parameters.Proto == "io.prometheus.client.MetricFamily"
            && parameters.Encoding == "delimited");

    private readonly Func<bool, ExpositionWriter> _createWriter;
    private readonly Func<string, MediaRangeParameters, bool> _answers;

    private ExpositionFormat(PrometheusExpositionFormat id, string contentType, string label, Func<bool, ExpositionWriter> createWriter, Func<string, MediaRangeParameters, bool> answers)
    {
        Id = id;
        ContentType = contentType;
        Label = label;
        _createWriter = createWriter;
        _answers = answers;
    }

    /// <summary>Every format, in the order of <see cref="PrometheusExpositionFormat"/>.</summary>
    /// <remarks>An immutable array, so that the negotiation's loop over it per media range allocates no enumerator.</remarks>
    public static ImmutableArray<ExpositionFormat> All { get; } = [Text, OpenMetrics, Protobuf];

    /// <summary>The public name of the format.</summary>
    public PrometheusExpositionFormat Id { get; }

    /// <summary>The content type of a body in the format.</summary>
    public string ContentType { get; }

    /// <summary>The format's name as the self-metrics' <c>format</c> label writes it.</summary>
    public string Label { get; }

    /// <summary>The format of <paramref name="id"/>.</summary>
    /// <param name="id">A format's public name.</param>
    /// <param name="parameterName">The caller's parameter, named in the exception.</param>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="id"/> is not a defined format.</exception>
    public static ExpositionFormat Of(PrometheusExpositionFormat id, string parameterName = "format") => id switch
    {
        PrometheusExpositionFormat.Text => Text,
        PrometheusExpositionFormat.OpenMetrics => OpenMetrics,
        PrometheusExpositionFormat.Protobuf => Protobuf,
        _ => throw new ArgumentOutOfRangeException(parameterName, id, "Not a format the exposition writes: Text, OpenMetrics or Protobuf."),
    };

    /// <summary>A new writer of the format, with empty caches: a writer is reused from scrape to scrape, one scrape at a time.</summary>
    /// <param name="openMetricsCreatedSamples">Whether an OpenMetrics writer writes <c>_created</c> samples
    /// (<see cref="OpenMetricsWriter.CreatedSamples"/>); the other formats ignore it (protobuf always
    /// writes a known start as <c>created_timestamp</c>, which adds no series).</param>
    public ExpositionWriter CreateWriter(bool openMetricsCreatedSamples = false) => _createWriter(openMetricsCreatedSamples);

    /// <summary>A new writer of the format, as <see cref="CreateWriter(bool)"/>, of the names of <paramref name="escaping"/>
    /// (<see cref="ExpositionWriter.Escaping"/>) under the UTF-8 translation <paramref name="utf8WithSuffixes"/> says.</summary>
    /// <param name="openMetricsCreatedSamples">Whether an OpenMetrics writer writes <c>_created</c> samples.</param>
    /// <param name="escaping">The escaping of the scrapes it writes.</param>
    /// <param name="utf8WithSuffixes">Whether the UTF-8 names carry the unit and type suffixes.</param>
    public ExpositionWriter CreateWriter(bool openMetricsCreatedSamples, EscapingScheme escaping, bool utf8WithSuffixes)
    {
        ExpositionWriter writer = _createWriter(openMetricsCreatedSamples);
        return escaping == EscapingScheme.Underscores ? writer : writer.WithNames(escaping, utf8WithSuffixes);
    }

    /// <summary>Whether the format answers the media range <paramref name="mediaType"/> with <paramref name="parameters"/> of an <c>Accept</c> header.</summary>
    /// <param name="mediaType">The media range's type (<c>text/plain</c>, <c>*/*</c>), trimmed.</param>
    /// <param name="parameters">Its parameters that pick a format.</param>
    public bool Answers(string mediaType, MediaRangeParameters parameters) => _answers(mediaType, parameters);

    /// <inheritdoc/>
    public override string ToString() => Label;
}
