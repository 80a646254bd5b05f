using ScalableMetrics.Snapshots;

namespace ScalableMetrics.Exporter.OpenTelemetry.Otlp.Encoding;

/// <summary>
/// What an OTLP export keeps of one series between exports: its attributes, encoded once, and for
/// delta temporality the reading of the last accepted export (<see cref="Committed"/>) and of the
/// export under way (<see cref="Pending"/>), which becomes the committed one when that export is
/// accepted (<see cref="OtlpExportBatch.Commit"/>). A series no longer read whose last point may
/// not have reached the receiver keeps that point (<see cref="FinalPoint"/>) until an export
/// carrying it is accepted.
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

    /// <summary>The time (Unix nanoseconds) of the newest exemplar the export of <see cref="PendingGeneration"/>
    /// wrote for a delta point of the series, or <see cref="CommittedExemplarUnixNano"/> where it wrote none newer.</summary>
    public ulong PendingExemplarUnixNano;

    /// <summary>The time of the newest exemplar the accepted delta points of the series carried; meaningful
    /// only when <see cref="HasCommitted"/>: a delta point leaves out an exemplar no newer, which an
    /// accepted point carried already (its reservoir keeps it from export to export).</summary>
    public ulong CommittedExemplarUnixNano;

    /// <summary>The start of a series made after a removal of its instrument (Unix nanoseconds), fixed
    /// when first read so that its cumulative points keep it; 0 until then, and for a series that
    /// starts with its instrument.</summary>
    public ulong OwnStartUnixNano;

    /// <summary>
    /// The encoded data point (<c>data_points</c> field, attributes, times and value) of the series'
    /// last reading, for the exports after it that no longer read the series: its final read, where
    /// that read removed it (<see cref="InstrumentSnapshot.IsRemovedAt"/>), or an observable series'
    /// last report, encoded once its callback stops reporting it (<see cref="Observed"/>). Null
    /// otherwise. Written by every export until one carrying it is accepted, which lets go of the state.
    /// </summary>
    public byte[]? FinalPoint;

    /// <summary>Whether the series is an observable instrument's: its last report's point can be encoded
    /// again from <see cref="Pending"/>'s <see cref="OtlpSeriesValue.Value"/>, <see cref="PendingStartUnixNano"/> and
    /// <see cref="PendingTimeUnixNano"/> when its callback stops reporting it.</summary>
    public bool Observed;

    /// <summary>An observable series' last point's <c>start_time_unix_nano</c>.</summary>
    public ulong PendingStartUnixNano;

    /// <summary>An observable series' last point's <c>time_unix_nano</c>: the export that read it.</summary>
    public ulong PendingTimeUnixNano;

    /// <summary>Whether the series owes the receiver its last reading's point: an export that did not
    /// read it writes <see cref="FinalPoint"/> (or encodes it, <see cref="Observed"/>), until one
    /// carrying it is accepted.</summary>
    /// <param name="committedGeneration">The last accepted export that read the series' instrument.</param>
    public bool OwesPoint(long committedGeneration) => PendingGeneration > committedGeneration && (FinalPoint is not null || Observed);
}
