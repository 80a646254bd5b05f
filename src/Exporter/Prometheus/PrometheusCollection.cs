namespace ScalableMetrics.Exporter.Prometheus;

/// <summary>
/// One collection of a <c>MeterProvider</c> in the text format, and where each family lies in
/// it, so that a scrape can leave out a family whose name the registry already wrote.
/// Immutable: each export makes its own, so a scrape never reads a buffer another collection
/// (a <c>ForceFlush</c>, a second scrape) is writing.
/// </summary>
/// <param name="Text">The UTF-8 text of every family.</param>
/// <param name="Families">The families, in the order of <paramref name="Text"/>.</param>
internal sealed record PrometheusCollection(byte[] Text, IReadOnlyList<PrometheusCollection.Family> Families)
{
    /// <summary>A collection with no family.</summary>
    public static PrometheusCollection Empty { get; } = new([], []);

    /// <summary>The same collection in OpenMetrics 1.0 text (its families without <c># EOF</c>), or null where none was written.</summary>
    public PrometheusCollection? OpenMetrics { get; init; }

    /// <summary>The same collection in the protobuf exposition (delimited <c>MetricFamily</c> messages), or null where none was written.</summary>
    public PrometheusCollection? Protobuf { get; init; }

    /// <summary>The collection in <paramref name="format"/>; empty where none was written in it.</summary>
    public PrometheusCollection In(PrometheusExpositionFormat format) => format switch
    {
        PrometheusExpositionFormat.OpenMetrics => OpenMetrics ?? Empty,
        PrometheusExpositionFormat.Protobuf => Protobuf ?? Empty,
        _ => this,
    };

    /// <summary>One family of the text.</summary>
    /// <param name="Name">The family name.</param>
    /// <param name="SampleNames">The names its samples are stored under.</param>
    /// <param name="Start">Where its lines start in the text.</param>
    /// <param name="Length">How many bytes they take.</param>
    public sealed record Family(string Name, string[] SampleNames, int Start, int Length);
}
