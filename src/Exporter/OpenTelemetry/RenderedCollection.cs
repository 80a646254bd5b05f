namespace ScalableMetrics.Exporter.OpenTelemetry;

/// <summary>
/// One collection of a <c>MeterProvider</c>, rendered in one exposition format, and where each
/// family lies in it, so that a scrape can leave out a family whose name the registry already
/// wrote. Immutable: each export makes its own, so a scrape never reads a buffer another
/// collection (a <c>ForceFlush</c>, a second scrape) is writing.
/// </summary>
/// <param name="Format">The format of <paramref name="Bytes"/>.</param>
/// <param name="Bytes">Every family, as the format writes them: text lines (OpenMetrics' without
/// <c># EOF</c>), or delimited protobuf messages.</param>
/// <param name="Families">The families, in the order of <paramref name="Bytes"/>.</param>
internal sealed record RenderedCollection(PrometheusExpositionFormat Format, byte[] Bytes, IReadOnlyList<RenderedCollection.FamilyRange> Families)
{
    /// <summary>Where one family lies in the bytes.</summary>
    /// <param name="Name">The family name (of the text format 0.0.4).</param>
    /// <param name="WrittenNames">The names its samples are written under (<see cref="ExposedMetric.WrittenNames"/>).</param>
    /// <param name="Start">Where its bytes start.</param>
    /// <param name="Length">How many bytes it takes.</param>
    public sealed record FamilyRange(string Name, string[] WrittenNames, int Start, int Length);
}
