namespace ScalableMetrics;

/// <summary>
/// One series of a <see cref="DoubleGauge"/>, bound to a fixed tag set: the last <see cref="double"/>
/// value set (<see cref="LastValueSeries{TValue}.Set"/>, <see cref="LastValueSeries{TValue}.Read"/>).
/// One cell, not partitioned: a gauge is set, not added to, so there is nothing to sum, and the
/// last writer wins whatever processor it runs on.
/// </summary>
/// <remarks>
/// <para>Thread-safe: a set is one plain 8-byte store, never torn. Get one from <see cref="SeriesInstrument{TSeries}.Bind">DoubleGauge.Bind</see>, once, and keep it.</para>
/// <para>A set takes any <see cref="double"/>: NaN and infinities too, exported as Prometheus
/// writes them (<c>NaN</c>, <c>+Inf</c>, <c>-Inf</c>); a gauge holds a snapshot, and the next set
/// replaces it.</para>
/// </remarks>
public sealed class DoubleGaugeSeries : LastValueSeries<double>
{
    internal DoubleGaugeSeries(TagSet tags)
        : base(tags)
    {
    }
}
