namespace ScalableMetrics.Exporter.OpenTelemetry.Otlp.Encoding;

/// <summary>
/// What an OTLP export keeps of one series between exports: its attributes, encoded once, and for
/// delta temporality the reading of the last accepted export (<see cref="Committed"/>) and of the
/// export under way (<see cref="Pending"/>), which becomes the committed one when that export is
/// accepted (<see cref="OtlpExportBatch.Commit"/>).
/// </summary>
/// <remarks>Not thread-safe: touched by one export at a time.</remarks>
internal sealed class OtlpSeriesState(TagSet tags, byte[] attributes)
{
    /// <summary>The series' tags: the very object of the series read last (a series removed and recorded again has equal tags in a new object, <see cref="OtlpInstrumentState.Series"/>).</summary>
    public TagSet Tags { get; set; } = tags;

    /// <summary>Its tags as encoded <c>KeyValue</c> fields of its kind's data point.</summary>
    public byte[] Attributes { get; } = attributes;

    /// <summary>The reading the last accepted export measured to; meaningful only when <see cref="HasCommitted"/>.</summary>
    public OtlpSeriesValue Committed;

    /// <summary>The reading of the export with generation <see cref="PendingGeneration"/>.</summary>
    public OtlpSeriesValue Pending;

    /// <summary>Whether an accepted export has read the series (so a delta is measured from <see cref="Committed"/>, not from zero).</summary>
    public bool HasCommitted;

    /// <summary>The export that last read the series.</summary>
    public long PendingGeneration;

    /// <summary>Its position in the readings of the export of <see cref="PendingGeneration"/>: where a histogram's pending counts are.</summary>
    public int PendingPosition;

    /// <summary>Its position in the readings of the last accepted export: where its committed counts are (a removal moves the series after it).</summary>
    public int CommittedPosition;
}
