using ScalableMetrics.Instruments.Gauges;

namespace ScalableMetrics;

/// <summary>
/// One series of a <see cref="DoubleGauge"/>, bound to a fixed tag set: the last <see cref="double"/>
/// value set. One cell, not partitioned: a gauge is set, not added to, so there is nothing to
/// sum, and the last writer wins whatever processor it runs on.
/// </summary>
/// <remarks>Thread-safe: a set is one plain 8-byte store, never torn. Get one from <see cref="SeriesInstrument{TSeries}.Bind">DoubleGauge.Bind</see>, once, and keep it.</remarks>
public sealed class DoubleGaugeSeries : Series, ILastValueSeries<double>
{
    private LastValue<double> _value;

    internal DoubleGaugeSeries(TagSet tags)
        : base(tags)
    {
    }

    /// <summary>Sets the series' value, replacing the last one.</summary>
    /// <param name="value">The value, any <see cref="double"/>: NaN and infinities too, exported as Prometheus writes them (<c>NaN</c>, <c>+Inf</c>, <c>-Inf</c>); a gauge holds a snapshot, and the next set replaces it.</param>
    public void Set(double value) => _value.Set(value);

    /// <summary>The last value set, or <see langword="null"/> before the first <see cref="Set"/>.</summary>
    /// <returns>The value; with concurrent sets, one of theirs.</returns>
    public double? Read() => _value.Read();
}
