namespace ScalableMetrics;

/// <summary>
/// One series of a <see cref="Gauge"/>, bound to a fixed tag set: the last <see cref="long"/>
/// value set (<see cref="LastValueSeries{TValue}.Set"/>, <see cref="LastValueSeries{TValue}.Read"/>).
/// One cell, not partitioned: a gauge is set, not added to, so there is nothing to sum, and the
/// last writer wins whatever processor it runs on.
/// </summary>
/// <remarks>Thread-safe: a set is one plain 8-byte store, never torn. Get one from <see cref="SeriesInstrument{TSeries}.Bind">Gauge.Bind</see>, once, and keep it.</remarks>
public sealed class GaugeSeries : LastValueSeries<long>
{
    internal GaugeSeries(TagSet tags)
        : base(tags)
    {
    }
}
